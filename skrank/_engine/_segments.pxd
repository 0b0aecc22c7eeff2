# Checks of ragged segments (consecutive runs of rows), shared by the
# kernels that work on them.
from libc.stdint cimport int64_t

cdef int check_segments(str fn, const int64_t[::1] starts, Py_ssize_t n) except -1
