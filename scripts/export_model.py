#!/usr/bin/env python3
"""Export a PyTorch model into ServeScope blocks (docs/formats.md "Model folders"): a model
folder with one TorchScript file per block and a manifest that says each block's input and
output tensor shapes and the bytes per sample that cross each cut.

Blocks are cut where a single tensor is live, as PPipe's data cuts models (seed 000 §2.1):
torch.fx traces the model, every node after which exactly one value is still needed is a
candidate cut, and the cuts are chosen among the candidates so that the blocks' estimated work
(multiply-accumulates of convolutions and linear layers, from shape propagation) is as even as
the candidates allow. Any model whose graph has such points splits, not only sequential ones.

Running the blocks in order gives the whole model's output; the script checks it on random
inputs before it writes anything (max abs difference <= 1e-4 of the output's largest value).

Usage:
  export_model.py resnet18 -o models/resnet18 [--blocks 10] [--input 3x224x224]
  export_model.py my_model.py:build -o models/mine --input 3x64x64   (a factory in a file)
  export_model.py densenet121 --check --input 3x64x64   (split and check, write nothing)
  export_model.py --list

Architectures come from torchvision with random weights (weights=None): nothing is downloaded.
"""

import argparse
import importlib.util
import json
import math
import os
import sys
import tempfile

try:
    import torch
    import torch.fx
    from torch.fx.passes.shape_prop import ShapeProp
except ImportError as e:  # the Debian packages are python3-torch and python3-torchvision
    sys.stderr.write("error: PyTorch is not installed for %s (%s); install python3-torch and "
                     "python3-torchvision (scripts/run.sh does)\n" % (sys.executable, e))
    sys.exit(2)

MANIFEST = "servescope-model.json"
TOLERANCE = 1e-4


class ExportError(Exception):
    pass


def torchvision_models():
    import torchvision.models as tvm
    return sorted(name for name in tvm.list_models(module=tvm)) if hasattr(tvm, "list_models") else sorted(
        name for name, f in vars(tvm).items()
        if callable(f) and name[0].islower() and not name.startswith("_") and name not in ("get_weight", "get_model"))


def build_model(spec):
    """A torchvision architecture by name, or FILE.py:FACTORY returning an nn.Module."""
    if ":" in spec and spec.split(":", 1)[0].endswith(".py"):
        path, factory = spec.split(":", 1)
        if not os.path.isfile(path):
            raise ExportError("%s: no such file" % path)
        module_spec = importlib.util.spec_from_file_location("servescope_user_model", path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        if not hasattr(module, factory):
            raise ExportError("%s has no function '%s'" % (path, factory))
        model = getattr(module, factory)()
        if not isinstance(model, torch.nn.Module):
            raise ExportError("%s:%s returned %s, not a torch.nn.Module" % (path, factory, type(model).__name__))
        return model, os.path.splitext(os.path.basename(path))[0]
    import torchvision.models as tvm
    if not hasattr(tvm, spec) or spec not in torchvision_models():
        raise ExportError("unknown architecture '%s' (see --list)" % spec)
    kwargs = {"weights": None}
    if spec.startswith("inception") or spec.startswith("googlenet"):
        kwargs["aux_logits"] = False  # one output tensor, and no auxiliary head to cut around
        kwargs["init_weights"] = True
    return getattr(tvm, spec)(**kwargs), spec


def macs(node, modules):
    """Multiply-accumulates of a convolution or linear node, from its propagated shapes."""
    if node.op != "call_module":
        return 0
    m = modules[node.target]
    meta = node.meta.get("tensor_meta")
    if meta is None or not hasattr(meta, "shape"):
        return 0
    out = meta.shape
    if isinstance(m, torch.nn.modules.conv._ConvNd):
        k = math.prod(m.kernel_size) * (m.in_channels // m.groups)
        return math.prod(out[1:]) * k
    if isinstance(m, torch.nn.Linear):
        return math.prod(out[1:]) * m.in_features
    return 0


def cut_candidates(graph):
    """Indices i (into the node list) after which only node i's output is still needed."""
    nodes = list(graph.nodes)
    last_use = {}
    for i, n in enumerate(nodes):
        for a in n.all_input_nodes:
            last_use[a] = i
    out, live = [], set()
    for i, n in enumerate(nodes):
        for a in n.all_input_nodes:
            if last_use[a] == i:
                live.discard(a)
        # Parameters and buffers read with get_attr are not activations: they go with the block
        # that uses them, not across a cut.
        if last_use.get(n, -1) > i and n.op != "get_attr":
            live.add(n)
        tensor = hasattr(n.meta.get("tensor_meta"), "shape")
        last = i + 1 >= len(nodes) or nodes[i + 1].op == "output"
        if n.op not in ("placeholder", "output") and tensor and not last and live == {n}:
            out.append(i)
    return out


def choose_cuts(candidates, work, blocks):
    """blocks - 1 cut indices among the candidates, each nearest its share of the total work."""
    total = sum(work)
    if blocks <= 1 or not candidates:
        return []
    prefix, s = [], 0
    for w in work:
        s += w
        prefix.append(s)
    cuts = []
    for b in range(1, blocks):
        target = total * b / blocks
        best = min((c for c in candidates if not cuts or c > cuts[-1]), key=lambda c: abs(prefix[c] - target), default=None)
        if best is None:
            break
        cuts.append(best)
    return sorted(set(cuts))


def export(spec, out_dir, blocks, input_shape, seed):
    torch.manual_seed(seed)
    model, name = build_model(spec)
    model.eval()
    try:
        traced = torch.fx.symbolic_trace(model)
    except Exception as e:  # fx cannot trace data-dependent control flow
        raise ExportError("torch.fx cannot trace %s: %s" % (name, e))
    example = torch.randn([1] + input_shape)
    with torch.no_grad():
        ShapeProp(traced).propagate(example)
    modules = dict(traced.named_modules())
    nodes = list(traced.graph.nodes)
    work = [macs(n, modules) for n in nodes]
    candidates = cut_candidates(traced.graph)
    cuts = choose_cuts(candidates, work, blocks)
    if len(cuts) + 1 < blocks:
        sys.stderr.write("note: %s has %d single-tensor cut points; exporting %d blocks, not %d\n"
                         % (name, len(candidates), len(cuts) + 1, blocks))
    submodules = make_blocks(traced, nodes, cuts, name)

    with torch.no_grad():
        # Trace every block (TorchScript is what the C++ side loads), then check the traced
        # blocks in order against the whole traced model at another batch size than traced at.
        x = torch.randn([1] + input_shape)
        scripted, entries = [], []
        for k, sub in enumerate(submodules):
            block = torch.jit.trace(sub, x, check_trace=False)
            y = block(x)
            if not isinstance(y, torch.Tensor):
                raise ExportError("block %d of %s returns %s; a cut must leave one tensor" % (k, name, type(y).__name__))
            scripted.append(block)
            entries.append({"file": "block_%02d.pt" % k, "input_shape": list(x.shape[1:]),
                            "output_shape": list(y.shape[1:]),
                            "output_bytes_per_sample": int(y[0].numel() * y.element_size())})
            x = y
        # The reference is the whole model as saved; with --check nothing is saved, and the eager
        # model (what the trace records) is the reference without a trace of its own.
        whole = None if out_dir is None else torch.jit.trace(model, torch.randn([1] + input_shape), check_trace=False)
        check_input = torch.randn([3] + input_shape)
        whole_out = (model if whole is None else whole)(check_input)
        x = check_input
        for block in scripted:
            x = block(x)
        scale = max(1.0, float(whole_out.abs().max()))
        diff = float((x - whole_out).abs().max())
        if diff > TOLERANCE * scale:
            raise ExportError("the blocks of %s do not reproduce the whole model: max abs difference %.3g "
                              "(allowed %.3g)" % (name, diff, TOLERANCE * scale))

    manifest = {"schema_version": 1, "kind": "torch-model", "name": name,
                "source": spec if ":" in spec else "torchvision.models.%s(weights=None)" % spec,
                "seed": seed, "input": {"shape": input_shape, "dtype": "float32"},
                "output_shape": entries[-1]["output_shape"], "whole": "whole.pt",
                "check": {"max_abs_difference": diff, "batch": 3}, "blocks": entries}
    if out_dir is None:  # --check: split and verify, write nothing
        return manifest
    os.makedirs(out_dir, exist_ok=True)
    for block, entry in zip(scripted, entries):
        block.save(os.path.join(out_dir, entry["file"]))
    whole.save(os.path.join(out_dir, "whole.pt"))
    tmp = tempfile.NamedTemporaryFile("w", dir=out_dir, delete=False, suffix=".tmp")
    with tmp:
        json.dump(manifest, tmp, indent=1)
        tmp.write("\n")
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, os.path.join(out_dir, MANIFEST))
    return manifest


def make_blocks(traced, nodes, cuts, name):
    """One GraphModule per block: block k runs the nodes after cut k - 1 up to cut k, reading the
    cut's tensor as its one input. Parameters (get_attr) are copied into each block that reads
    them, so they never cross a cut."""
    bounds = [-1] + cuts + [len(nodes) - 1]
    blocks = []
    for k in range(len(bounds) - 1):
        g = torch.fx.Graph()
        env = {}
        if k > 0:
            env[nodes[bounds[k]]] = g.placeholder("x")

        def lookup(n, env=env, g=g, k=k):
            if n not in env:
                if n.op != "get_attr":
                    raise ExportError("%s: %s crosses the cut before block %d" % (name, n.name, k))
                env[n] = g.node_copy(n, lookup)
            return env[n]

        for i in range(bounds[k] + 1, bounds[k + 1] + 1):
            n = nodes[i]
            if n.op == "get_attr":
                continue  # copied where it is read
            if n.op == "output":
                g.output(torch.fx.map_arg(n.args[0], lookup))
            else:
                env[n] = g.node_copy(n, lookup)
        if k + 1 < len(bounds) - 1:
            g.output(env[nodes[bounds[k + 1]]])
        blocks.append(torch.fx.GraphModule(traced, g))
    return blocks


def parse_shape(text):
    try:
        shape = [int(v) for v in text.lower().split("x")]
    except ValueError:
        raise ExportError("--input %s: expected dimensions like 3x224x224" % text)
    if not shape or any(v <= 0 for v in shape):
        raise ExportError("--input %s: dimensions must be positive" % text)
    return shape


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", nargs="*",
                   help="a torchvision architecture, or FILE.py:FACTORY (several with --check)")
    p.add_argument("-o", "--out", help="the model folder to write")
    p.add_argument("--blocks", type=int, default=10, help="number of blocks (default 10)")
    p.add_argument("--input", default="3x224x224", help="input shape without the batch (default 3x224x224)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random weights (default 0)")
    p.add_argument("--list", action="store_true", help="list the torchvision architectures")
    p.add_argument("--check", action="store_true", help="split and check the blocks, write nothing")
    a = p.parse_args(argv)
    try:
        if a.list:
            print("\n".join(torchvision_models()))
            return 0
        if not a.model or not (a.out or a.check):
            p.error("a model and -o DIR (or --check) are required")
        if len(a.model) > 1 and not a.check:
            p.error("one model at a time with -o DIR; several only with --check")
        if a.blocks < 1 or a.blocks > 1024:
            raise ExportError("--blocks must be 1-1024")
        shape = parse_shape(a.input)
    except ExportError as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    # Several models share one start of Python and PyTorch (about 2 s each); each is checked
    # and reported on its own, and one that fails does not stop the others.
    failed = []
    for model in a.model:
        try:
            m = export(model, None if a.check else a.out, a.blocks, shape, a.seed)
            print("%s: %d blocks %s (max abs difference of the split %.2g)"
                  % (m["name"], len(m["blocks"]), "checked" if a.check else "in " + a.out,
                     m["check"]["max_abs_difference"]), flush=True)
        except ExportError as e:
            sys.stderr.write("error: %s\n" % e)
            failed.append(model)
    if failed and len(a.model) > 1:
        sys.stderr.write("error: %d of %d models failed: %s\n" % (len(failed), len(a.model), " ".join(failed)))
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
