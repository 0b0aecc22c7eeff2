"""Exact ranking evaluation on Dask and Spark over one common core.

:mod:`skrank.distributed._common` holds what both adapters do (the calls
validated on the client, the evaluation of a partition holding whole
queries, the exact means from partial sums); :mod:`skrank.distributed.dask`
and :mod:`skrank.distributed.spark` run it on their engine. The public
functions are those of :mod:`skrank.dask` and :mod:`skrank.spark`.
"""
