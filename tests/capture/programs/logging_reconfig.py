"""Two functions with one graph break each; the program reconfigures logging at start-up and again between them.

argv[1] picks the reconfiguration (none, dictconfig, fileconfig, disable, cleared, torch_parent, level); the program's
own log lines go to stdout through whatever it configured, so its output can be compared with a run under python.
"""

import logging
import logging.config
import os
import sys
import tempfile

import torch

MODE = sys.argv[1]
FORMAT = "%(name)s %(levelname)s %(message)s"


def reconfigure():
    if MODE == "dictconfig":  # as in the logging cookbook: disable_existing_loggers defaults to True
        logging.config.dictConfig({
            "version": 1,
            "formatters": {"plain": {"format": FORMAT}},
            "handlers": {"out": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout", "formatter": "plain"}},
            "root": {"level": "INFO", "handlers": ["out"]},
        })
    elif MODE == "fileconfig":
        text = (
            "[loggers]\nkeys=root\n[handlers]\nkeys=out\n[formatters]\nkeys=plain\n"
            "[logger_root]\nlevel=INFO\nhandlers=out\n"
            "[handler_out]\nclass=StreamHandler\nformatter=plain\nargs=(sys.stdout,)\n"
            f"[formatter_plain]\nformat={FORMAT}\n"  # read raw: no %-escaping
        )
        with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as fh:
            fh.write(text)
        logging.config.fileConfig(fh.name)
        os.unlink(fh.name)
    elif MODE == "disable":
        logging.basicConfig(stream=sys.stdout, format=FORMAT, level=logging.INFO, force=True)
        logging.disable(logging.CRITICAL)
    elif MODE == "cleared":  # a "silence everything" loop over every known logger
        logging.basicConfig(stream=sys.stdout, format=FORMAT, level=logging.INFO, force=True)
        for name in list(logging.root.manager.loggerDict):
            logger = logging.getLogger(name)
            logger.handlers.clear()
            logger.handlers = []
    elif MODE == "torch_parent":  # configuring "torch" empties its children's handlers and lets them propagate
        logging.config.dictConfig({
            "version": 1,
            "formatters": {"plain": {"format": FORMAT}},
            "handlers": {"out": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout", "formatter": "plain"}},
            "loggers": {"torch": {"level": "WARNING", "handlers": ["out"]}},
            "root": {"level": "INFO", "handlers": ["out"]},
        })
    elif MODE == "level":
        logging.basicConfig(stream=sys.stdout, format=FORMAT, level=logging.INFO, force=True)
        trace = logging.getLogger("torch.__trace")
        trace.setLevel(logging.CRITICAL)
        trace.disabled = True
    logging.getLogger("app").warning("configured %s", MODE)


def with_print(x):
    y = x + 1
    print("in with_print")  # graph break 1
    return y * 2


def with_item(x):
    y = x.sin()
    n = int(y.sum().item())  # graph break 2
    return y + n


reconfigure()  # at start-up, before the first compile
print(torch.compile(with_print, backend="eager")(torch.ones(3)).tolist())
reconfigure()  # mid-run, between compiles
print(torch.compile(with_item, backend="eager")(torch.ones(3)).tolist())
logging.getLogger("app").warning("done")
