"""Run a program with runpy and write torch._dynamo.utils.counters to a JSON file at exit.
usage: python counters_wrapper.py OUT.json PROGRAM.py"""
import json
import runpy
import sys

out, prog = sys.argv[1], sys.argv[2]
sys.argv = [prog]
rc = 0
try:
    runpy.run_path(prog, run_name="__main__")
except SystemExit as e:
    rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
except BaseException:
    import traceback
    traceback.print_exc()
    rc = 1
finally:
    from torch._dynamo.utils import counters
    data = {k: {str(kk): vv for kk, vv in v.items()} for k, v in counters.items() if v}
    with open(out, "w") as f:
        json.dump({"exit_status": rc, "counters": data}, f, indent=1, sort_keys=True)
sys.exit(rc)
