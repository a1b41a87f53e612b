import json
import os
import sys

import torch  # noqa: F401  (the program under test imports torch as real programs do)

print(json.dumps({
    "argv": sys.argv,
    "path0": os.path.realpath(sys.path[0]) if sys.path[0] else sys.path[0],
    "name": __name__,
    "main_file": os.path.realpath(sys.modules["__main__"].__file__),
}))
sys.stderr.write("to stderr\n")
