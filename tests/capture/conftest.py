import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # capture_util, importable by name from the tests here
