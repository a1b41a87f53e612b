"""Each rank's program runs to its end; then Python's shutdown aborts the process (as torch's gloo exit abort does).

The abort waits until every rank has reached its shutdown (a file per rank in $SYNC_DIR), so no rank is killed by
torchrun while its program is still running."""
import atexit
import os
import sys
import time
from pathlib import Path

sync = Path(os.environ["SYNC_DIR"])


def abort_once_every_rank_is_shutting_down():
    (sync / f"rank{os.environ['RANK']}").touch()
    deadline = time.monotonic() + 120
    while len(list(sync.glob("rank*"))) < int(os.environ["WORLD_SIZE"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.abort()


atexit.register(abort_once_every_rank_is_shutting_down)  # runs while the interpreter shuts down
# one write per line: the ranks share torchrun's stdout, and print's separate writes of each argument interleave
# under the suite's PYTHONUNBUFFERED ("rankrank 1 done\n 0 done\n" was seen); one write of a line is atomic on a pipe
sys.stdout.write(f"rank {os.environ['RANK']} done\n")
sys.stdout.flush()
