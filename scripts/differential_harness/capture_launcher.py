"""``python capture_launcher.py RECORD_DIR program.py [args]``: run a program inside ``with tdiag.capture():``.

What a user does who wraps their script's code in the capture block: the program still runs as ``__main__`` from its
own file (so multiprocessing's spawn children re-import it by path, as under python), with its own ``sys.argv`` and
``sys.path[0]``. Under torchrun each rank records into RECORD_DIR/rank<R>.
"""

import os
import sys
import types


def main() -> int:
    record_dir, program, *args = sys.argv[1:]
    rank = os.environ.get("RANK")
    if rank is not None:
        record_dir = os.path.join(record_dir, f"rank{rank}")
    program = os.path.abspath(program)
    sys.argv = [program, *args]
    sys.path[0] = os.path.dirname(program)
    main_module = types.ModuleType("__main__")
    main_module.__dict__.update(__file__=program, __builtins__=__builtins__, __spec__=None, __package__=None)
    sys.modules["__main__"] = main_module
    with open(program, "rb") as fh:
        code = compile(fh.read(), program, "exec", dont_inherit=True)

    import tdiag

    with tdiag.capture(record_dir, root=os.path.dirname(program)):
        exec(code, main_module.__dict__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
