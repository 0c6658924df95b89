#!/usr/bin/env python3
"""ctest torch.export.refusals: what export_model.py must refuse, each with exit 2 and one line
naming what is wrong, never a traceback (issue 48): a model torch.fx cannot trace, a factory that
is not there, one that raises, one that returns no module, an integer input without its range,
a bad name, a cut that names nothing. And a cut after a submodule that is there, where fx cannot
trace, splits the model as its submodules (the check then confirms it)."""

import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import export_model  # noqa: E402  (after the path it is found on)

MODELS = os.path.join(HERE, "models", "own_models.py")


def run(args):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = export_model.main(args)
        except SystemExit as e:  # argparse's own refusals
            code = e.code
    return code, err.getvalue()


CASES = [
    (["%s:untraceable" % MODELS, "--check", "--input", "16"], "torch.fx cannot trace untraceable"),
    (["%s:untraceable" % MODELS, "--check", "--input", "16"], "--cut-after SUBMODULE"),
    (["%s:nope" % MODELS, "--check", "--input", "16"], "has no function 'nope'"),
    (["%s:raises" % MODELS, "--check", "--input", "16"], "raised ValueError: this factory fails on purpose"),
    (["%s:not_a_module" % MODELS, "--check", "--input", "16"], "returned int, not a torch.nn.Module"),
    (["%s:binned" % MODELS, "--check", "--input", "32", "--input-dtype", "int32"], "needs its range: give --vocab"),
    (["%s:binned" % MODELS, "--check", "--input", "32", "--name", "a/b"], "--name"),
    (["%s:binned" % MODELS, "--check", "--input", "32", "--cut-after", "nothing"], "--cut-after"),
    (["%s:encoder" % MODELS, "--check", "--input", "7x7"], "does not run on a 7x7 int64 input"),
    ([os.path.join(HERE, "no_such_file.py") + ":f", "--check"], "no such file"),
]

failures = 0
for args, says in CASES:
    code, err = run(args)
    if code != 2 or "Traceback" in err or says not in err or not err.startswith("error: "):
        failures += 1
        sys.stderr.write("FAIL %s: exit %s, stderr:\n%s\n" % (" ".join(args[:1] + args[1:]), code, err))

# Where fx cannot trace, a cut after a named submodule splits the model as its submodules.
code, err = run(["%s:untraceable" % MODELS, "--check", "--input", "16", "--cut-after", "x"])
if code != 2 or "no top-level submodule so named (it has: a, b)" not in err:
    failures += 1
    sys.stderr.write("FAIL --cut-after x on an untraceable model: exit %s, %s\n" % (code, err))
print("%d of %d refusals as they should be" % (len(CASES) + 1 - failures, len(CASES) + 1))
sys.exit(1 if failures else 0)
