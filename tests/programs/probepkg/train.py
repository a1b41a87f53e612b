import json
import os
import sys

print(json.dumps({"argv": sys.argv[1:], "name": __name__, "path0": os.path.realpath(sys.path[0])}))
