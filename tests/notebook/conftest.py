"""One real Jupyter kernel per module: examples/notebook.ipynb plus test cells, executed once by nbclient.
The browser and artifacts fixtures are the suite's (tests/conftest.py)."""
