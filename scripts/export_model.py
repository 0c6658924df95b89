#!/usr/bin/env python3
"""Export a PyTorch model into ServeScope blocks (docs/formats.md "Model folders"): a model
folder with one TorchScript file per block and a manifest that says each block's input and
output tensor shapes and the bytes per sample that cross each cut.

Blocks are cut where a single tensor is live, as PPipe's data cuts models (seed 000 §2.1):
torch.fx traces the model, every node after which exactly one value is still needed is a
candidate cut, and the cuts are chosen among the candidates so that the blocks' estimated work
(node_cost.py: multiply-accumulates of convolutions, linear layers, matrix products, attention,
transformer and recurrent layers, an element's worth for everything else, from shape
propagation) is as even as the candidates allow; the share each block got is reported. Any
model whose graph has such points splits, not only sequential ones. Where torch.fx cannot trace
a model, --cut-after names top-level submodules to cut after: the model is then taken as its
submodules in order, which the check below confirms or refuses.

Inputs may be float32 or float16, int64, int32 or bool; the manifest names each boundary's
dtype. A model whose input feeds an nn.Embedding takes int64 token ids below its vocabulary
(read from the embedding, or --vocab); --input-dtype says it where it cannot be read.

Running the blocks in order gives the whole model's output; the script checks it on random
inputs before it writes anything (max abs difference <= 1e-4 of the output's largest value).

Usage:
  export_model.py resnet18 -o models/resnet18 [--blocks 10] [--input 3x224x224]
  export_model.py my_model.py:build -o models/mine --input 3x64x64   (a factory in a file; named build)
  export_model.py bert.py:encoder -o models/enc --input 128 --name my-encoder   (token ids)
  export_model.py densenet121 --check --input 3x64x64   (split and check, write nothing)
  export_model.py --list

Architectures come from torchvision with random weights (weights=None): nothing is downloaded.
"""

import argparse
import contextlib
import dis
import importlib.util
import inspect
import io
import json
import math
import os
import sys
import tempfile
import warnings

try:
    import torch
    import torch.fx
    from torch.fx.passes.shape_prop import ShapeProp
except ImportError as e:  # the Debian packages are python3-torch and python3-torchvision
    sys.stderr.write("error: PyTorch is not installed for %s (%s); install python3-torch and "
                     "python3-torchvision (scripts/run.sh does)\n" % (sys.executable, e))
    sys.exit(2)

from node_cost import node_work

MANIFEST = "servescope-model.json"
TOLERANCE = 1e-4
DTYPES = {"float32": torch.float32, "float16": torch.float16, "int64": torch.int64, "int32": torch.int32,
          "bool": torch.bool}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


class ExportError(Exception):
    pass


def _unpacking_iter(proxy):
    """Proxy.__iter__ for Python 3.11: `a, b = proxy` unpacks into as many proxies as the caller's
    UNPACK_SEQUENCE takes. torch 1.13 finds that instruction by f_lasti // 2, which 3.11's
    bytecode (with its inline caches) no longer matches, so every unpacking of a traced value
    failed: an RNN's `out, _ = …`, ShuffleNet's and ViT's `n, c, h, w = x.shape`."""
    calling = inspect.currentframe().f_back
    for inst in dis.get_instructions(calling.f_code):
        if inst.offset == calling.f_lasti:
            if inst.opname == "UNPACK_SEQUENCE":
                return (proxy[i] for i in range(inst.argval))
            break
    return proxy.tracer.iter(proxy)


def trace_graph(model):
    """torch.fx's trace of `model`, with unpacking that works on this Python."""
    original = torch.fx.proxy.Proxy.__iter__
    if sys.version_info >= (3, 11):
        torch.fx.proxy.Proxy.__iter__ = _unpacking_iter
    try:
        tracer = torch.fx.Tracer()
        graph = tracer.trace(model)
    finally:
        torch.fx.proxy.Proxy.__iter__ = original
    return torch.fx.GraphModule(tracer.root, graph, model.__class__.__name__)


def torchvision_models():
    import torchvision.models as tvm
    return sorted(name for name in tvm.list_models(module=tvm)) if hasattr(tvm, "list_models") else sorted(
        name for name, f in vars(tvm).items()
        if callable(f) and name[0].islower() and not name.startswith("_") and name not in ("get_weight", "get_model"))


def build_model(spec):
    """A torchvision architecture by name, or FILE.py:FACTORY returning an nn.Module; with the
    name it goes by (the architecture's, or the factory's)."""
    if ":" in spec and spec.split(":", 1)[0].endswith(".py"):
        path, factory = spec.split(":", 1)
        if not os.path.isfile(path):
            raise ExportError("%s: no such file" % path)
        module_spec = importlib.util.spec_from_file_location("servescope_user_model", path)
        module = importlib.util.module_from_spec(module_spec)
        try:
            module_spec.loader.exec_module(module)
        except Exception as e:  # the user's file: whatever it raises is theirs to read
            raise ExportError("%s cannot be loaded: %s: %s" % (path, type(e).__name__, e))
        if not callable(getattr(module, factory, None)):
            names = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
            raise ExportError("%s has no function '%s' (it has: %s)" % (path, factory, ", ".join(names) or "none"))
        try:
            model = getattr(module, factory)()
        except Exception as e:
            raise ExportError("%s:%s raised %s: %s" % (path, factory, type(e).__name__, e))
        if not isinstance(model, torch.nn.Module):
            raise ExportError("%s:%s returned %s, not a torch.nn.Module" % (path, factory, type(model).__name__))
        return model, factory
    import torchvision.models as tvm
    if not hasattr(tvm, spec) or spec not in torchvision_models():
        raise ExportError("unknown architecture '%s' (see --list)" % spec)
    kwargs = {"weights": None}
    if spec.startswith("inception") or spec.startswith("googlenet"):
        kwargs["aux_logits"] = False  # one output tensor, and no auxiliary head to cut around
        kwargs["init_weights"] = True
    return getattr(tvm, spec)(**kwargs), spec


def input_domain(traced, modules, dtype_name, vocabulary):
    """The input's dtype and, for integers, how many values it takes: given, or read from the
    embeddings the input feeds (token ids), else float32."""
    placeholder = next(n for n in traced.graph.nodes if n.op == "placeholder")
    embeddings = [modules[u.target].num_embeddings for u in placeholder.users
                  if u.op == "call_module" and isinstance(modules[u.target], (torch.nn.Embedding, torch.nn.EmbeddingBag))]
    embeddings += [u.args[1].meta["tensor_meta"].shape[0] for u in placeholder.users
                   if u.op == "call_function" and u.target is torch.nn.functional.embedding
                   and hasattr(u.args[1], "meta") and hasattr(u.args[1].meta.get("tensor_meta"), "shape")]
    if dtype_name == "auto":
        dtype_name = "int64" if embeddings else "float32"
    dtype = DTYPES[dtype_name]
    if dtype.is_floating_point or dtype == torch.bool:
        return dtype, None
    if vocabulary is None:
        if not embeddings:
            raise ExportError("an %s input needs its range: give --vocab N (inputs are drawn from 0 to N - 1)"
                              % dtype_name)
        vocabulary = min(embeddings)
    return dtype, vocabulary


def example_input(batch, shape, dtype, vocabulary, generator=None):
    """Random samples in the input's own domain: normal floats, ids below the vocabulary, coin flips."""
    size = [batch] + shape
    if dtype == torch.bool:
        return torch.rand(size, generator=generator) < 0.5
    if not dtype.is_floating_point:
        return torch.randint(0, vocabulary, size, generator=generator, dtype=dtype)
    return torch.randn(size, generator=generator).to(dtype)


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


def children_blocks(model, cut_after, name):
    """Where torch.fx cannot trace: the model as its top-level submodules in order, cut after the
    named ones. Only the check against the whole model says whether that is the model."""
    children = list(model.named_children())
    names = [n for n, _ in children]
    for c in cut_after:
        if c not in names:
            raise ExportError("--cut-after %s: %s has no top-level submodule so named (it has: %s)"
                              % (c, name, ", ".join(names) or "none"))
    blocks, current = [], []
    for n, m in children:
        current.append(m)
        if n in cut_after:
            blocks.append(torch.nn.Sequential(*current))
            current = []
    if current:
        blocks.append(torch.nn.Sequential(*current))
    return blocks


def trace_whole(model, example):
    """The whole model as TorchScript: traced, or scripted where its control flow needs it."""
    try:
        return torch.jit.trace(model, example, check_trace=False)
    except Exception:
        try:
            return torch.jit.script(model)
        except Exception as e:
            raise ExportError("TorchScript can neither trace nor script the whole model: %s" % str(e).split("\n")[0])


def export(spec, out_dir, blocks, input_shape, seed, dtype_name="auto", vocabulary=None, name=None, cut_after=None):
    # Tracing a block warns where a value of it is read as a Python number (a shape assertion);
    # the check below is what says whether the blocks are the model.
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    torch.manual_seed(seed)
    model, default_name = build_model(spec)
    name = name or default_name
    model.eval()
    cut_after = cut_after or []
    try:
        traced = trace_graph(model)
    except Exception as e:  # fx cannot trace data-dependent control flow
        if not cut_after:
            children = ", ".join(n for n, _ in model.named_children()) or "none"
            raise ExportError("torch.fx cannot trace %s (%s); name where to cut with --cut-after SUBMODULE,… "
                              "(its top-level submodules: %s)" % (name, str(e).split("\n")[0], children))
        traced = None
    modules = dict(traced.named_modules()) if traced else {}
    if traced:
        dtype, vocabulary = input_domain(traced, modules, dtype_name, vocabulary)
    else:
        dtype = DTYPES["float32" if dtype_name == "auto" else dtype_name]
        if not (dtype.is_floating_point or dtype == torch.bool) and vocabulary is None:
            raise ExportError("an %s input needs its range: give --vocab N" % DTYPE_NAMES[dtype])
    example = example_input(1, input_shape, dtype, vocabulary)
    shares = []
    if traced:
        try:
            # ShapeProp prints the traceback of a node that fails before it raises: the user gets
            # the cause in one line instead.
            with torch.no_grad(), contextlib.redirect_stderr(io.StringIO()):
                ShapeProp(traced).propagate(example)
        except Exception as e:
            cause = e.__cause__ or e.__context__ or e
            raise ExportError("%s does not run on a %s %s input: %s" % (name, "x".join(map(str, input_shape)),
                                                                      DTYPE_NAMES[dtype], str(cause).split("\n")[0]))
        nodes = list(traced.graph.nodes)
        work = [node_work(n, modules) for n in nodes]
        candidates = cut_candidates(traced.graph)
        if cut_after:
            by_name = {n.target if n.op == "call_module" else n.name: i for i, n in enumerate(nodes)}
            cuts = sorted(by_name[c] for c in cut_after if c in by_name and by_name[c] in candidates)
            if len(cuts) != len(cut_after):
                raise ExportError("--cut-after: each must name a node after which one tensor is live; of %s these are: %s"
                                  % (",".join(cut_after), ", ".join(nodes[i].name for i in candidates[:40])))
        else:
            cuts = choose_cuts(candidates, work, blocks)
        if len(cuts) + 1 < blocks and not cut_after:
            sys.stderr.write("note: %s has %d single-tensor cut points; exporting %d blocks, not %d\n"
                             % (name, len(candidates), len(cuts) + 1, blocks))
        submodules = make_blocks(traced, nodes, cuts, name)
        bounds = [-1] + cuts + [len(nodes) - 1]
        total = max(1, sum(work))
        shares = [sum(work[bounds[k] + 1:bounds[k + 1] + 1]) / total for k in range(len(bounds) - 1)]
    else:
        submodules = children_blocks(model, cut_after, name)

    with torch.no_grad():
        # Trace every block (TorchScript is what the C++ side loads), then check the traced
        # blocks in order against the whole traced model at another batch size than traced at.
        x = example
        scripted, entries = [], []
        for k, sub in enumerate(submodules):
            try:
                block = torch.jit.trace(sub, x, check_trace=False)
                y = block(x)
            except ExportError:
                raise
            except Exception as e:
                raise ExportError("block %d of %s cannot be traced: %s" % (k, name, str(e).split("\n")[0]))
            if not isinstance(y, torch.Tensor):
                raise ExportError("block %d of %s returns %s; a cut must leave one tensor" % (k, name, type(y).__name__))
            if y.dtype not in DTYPE_NAMES:
                raise ExportError("block %d of %s returns %s, which a cut cannot carry (%s)"
                                  % (k, name, y.dtype, ", ".join(DTYPES)))
            scripted.append(block)
            entries.append({"file": "block_%02d.pt" % k, "input_shape": list(x.shape[1:]),
                            "input_dtype": DTYPE_NAMES[x.dtype], "output_shape": list(y.shape[1:]),
                            "output_dtype": DTYPE_NAMES[y.dtype],
                            "output_bytes_per_sample": int(y[0].numel() * y.element_size())})
            x = y
        # The reference is the whole model as saved; with --check nothing is saved, and the eager
        # model (what the trace records) is the reference without a trace of its own.
        whole = None if out_dir is None else trace_whole(model, example_input(1, input_shape, dtype, vocabulary))
        check_input = example_input(3, input_shape, dtype, vocabulary)
        whole_out = (model if whole is None else whole)(check_input)
        x = check_input
        for block in scripted:
            x = block(x)
        if x.shape != whole_out.shape:
            raise ExportError("the blocks of %s end in a %s tensor, the whole model in a %s one"
                              % (name, list(x.shape), list(whole_out.shape)))
        scale = max(1.0, float(whole_out.abs().max()))
        diff = float((x.double() - whole_out.double()).abs().max())
        if diff > TOLERANCE * scale:
            raise ExportError("the blocks of %s do not reproduce the whole model: max abs difference %.3g "
                              "(allowed %.3g)" % (name, diff, TOLERANCE * scale))

    input_entry = {"shape": input_shape, "dtype": DTYPE_NAMES[dtype]}
    if vocabulary is not None:
        input_entry["vocabulary"] = vocabulary
    manifest = {"schema_version": 1, "kind": "torch-model", "name": name,
                "source": spec if ":" in spec else "torchvision.models.%s(weights=None)" % spec,
                "seed": seed, "input": input_entry,
                "output_shape": entries[-1]["output_shape"], "whole": "whole.pt",
                "check": {"max_abs_difference": diff, "batch": 3}, "blocks": entries}
    if shares:
        manifest["work_shares"] = [round(v, 4) for v in shares]
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
    p.add_argument("--input-dtype", default="auto", choices=["auto"] + list(DTYPES),
                   help="the input's dtype (default: int64 where it feeds an embedding, else float32)")
    p.add_argument("--vocab", type=int, help="integer inputs are drawn from 0 to VOCAB - 1 (default: the embedding's)")
    p.add_argument("--name", help="the model's name (default: the architecture's, or the factory's)")
    p.add_argument("--cut-after", help="cut after these top-level submodules (or fx nodes), comma-separated")
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
        if a.vocab is not None and not 1 <= a.vocab <= 1 << 40:
            raise ExportError("--vocab must be 1 to 2^40")
        if a.name is not None and (not a.name or len(a.name) > 128 or any(c in a.name for c in "/\\\n\0")):
            raise ExportError("--name %r: a name of 1-128 characters without / or \\" % a.name)
        if a.name is not None and len(a.model) > 1:
            raise ExportError("--name names one model")
        cut_after = [c for c in (a.cut_after or "").split(",") if c]
    except ExportError as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    # Several models share one start of Python and PyTorch (about 2 s each); each is checked
    # and reported on its own, and one that fails does not stop the others.
    failed = []
    for model in a.model:
        try:
            m = export(model, None if a.check else a.out, a.blocks, shape, a.seed, a.input_dtype, a.vocab, a.name,
                       cut_after)
            shares = m.get("work_shares")
            print("%s: %d blocks %s (max abs difference of the split %.2g)%s"
                  % (m["name"], len(m["blocks"]), "checked" if a.check else "in " + a.out,
                     m["check"]["max_abs_difference"],
                     "; blocks' shares of the work: " + " ".join("%.0f%%" % (100 * v) for v in shares) if shares else ""),
                  flush=True)
        except ExportError as e:
            sys.stderr.write("error: %s\n" % e)
            failed.append(model)
        except Exception as e:  # never a traceback: what failed, in one line, and the model it was
            sys.stderr.write("error: %s: %s: %s\n" % (model, type(e).__name__, str(e).split("\n")[0]))
            failed.append(model)
    if failed and len(a.model) > 1:
        sys.stderr.write("error: %d of %d models failed: %s\n" % (len(failed), len(a.model), " ".join(failed)))
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
