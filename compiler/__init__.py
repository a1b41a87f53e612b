"""The instrumented compiler: Inductor-side capture (kernels, fusion groups, lowering decisions, AOT partitions)."""
