# Size and shape checks of the engine's kernels, shared by its Cython modules.

cpdef int check_size(object what, Py_ssize_t itemsize, tuple factors) except -1
cdef int check_shape(
    str what, str name, Py_ssize_t m, Py_ssize_t n, Py_ssize_t got_m, Py_ssize_t got_n
) except -1
cdef bint is_float32(object a)
