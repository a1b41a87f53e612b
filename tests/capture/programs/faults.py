"""Two graph breaks; argv[1] breaks tdiag's capture mid-run the way a program or a torch release could.

reshaped: torch's structured-trace records for dynamo_start carry their metadata as a JSON string instead of a
          dict (as a torch release changing the event's shape would), from the second function on.
removed:  after the first function, the program takes torch.__trace back to a plain Logger and drops every handler.
"""

import json
import logging
import sys

import torch

FAULT = sys.argv[1]


def with_print(x):
    y = x + 1
    print("in with_print")  # graph break 1
    return y * 2


def with_item(x):
    y = x.sin()
    n = int(y.sum().item())  # graph break 2
    return y + n


def break_capture():
    trace = logging.getLogger("torch.__trace")
    if FAULT == "reshaped":
        make_record = trace.makeRecord

        def reshaped(*args, **kwargs):
            record = make_record(*args, **kwargs)
            metadata = getattr(record, "metadata", None)
            if isinstance(metadata, dict) and "dynamo_start" in metadata:
                record.metadata = json.dumps(metadata, default=str)
            return record

        trace.makeRecord = reshaped
    elif FAULT == "removed":
        trace.__class__ = logging.Logger
        trace.handlers = []


print(torch.compile(with_print, backend="eager")(torch.ones(3)).tolist())
break_capture()
print(torch.compile(with_item, backend="eager")(torch.ones(3)).tolist())
