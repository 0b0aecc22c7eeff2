/*
 * Compiled kernels of the ranking engine (skrank._engine).
 *
 * Each function has a numpy equivalent in skrank/_engine.py, which is used
 * when this extension is not built (it is optional) and which the tests
 * check it against. The functions read C-contiguous buffers of the item
 * types they declare (checked on entry: type, size and native byte order;
 * the callers in skrank/_native.py convert their arrays once), release the
 * GIL while they work and write into buffers the caller allocated, so that
 * no numpy headers are needed to build them. Their own scratch memory comes
 * from PyMem_RawMalloc (usable without the GIL, and seen by tracemalloc).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------------ */
/* Buffers: each kernel reads items of one declared type.                    */
/* ------------------------------------------------------------------------ */

/* Converters for PyArg_ParseTuple's "O&": the buffer of an argument with
 * its format and strides (buf_in), or writable as well (buf_out). Every
 * buffer taken is then checked by check_buf, before it is read, against
 * the items the kernel reads: their type, size and byte order, and a
 * C-contiguous layout, so that no other buffer is read as if it were one. */
static int take_buf(PyObject *obj, Py_buffer *view, int flags)
{
    if (obj == NULL) { /* cleanup after a later argument failed */
        PyBuffer_Release(view);
        return 1;
    }
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        view->obj = NULL;
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "a kernel's %s must be a%s buffer; got an object of type %.100s",
                     (flags & PyBUF_WRITABLE) ? "output" : "input",
                     (flags & PyBUF_WRITABLE) ? " writable" : "", Py_TYPE(obj)->tp_name);
        return 0;
    }
    return Py_CLEANUP_SUPPORTED;
}

static int buf_in(PyObject *obj, void *view) { return take_buf(obj, (Py_buffer *)view, 0); }

static int buf_out(PyObject *obj, void *view)
{
    return take_buf(obj, (Py_buffer *)view, PyBUF_WRITABLE);
}

/* The class of a buffer format of one item in native byte order: 'i'
 * (signed integers), 'u' (unsigned), 'f' (floating point), 'b' (bool), or 0
 * for any other format (several items, a foreign byte order, a struct). */
static char format_class(const char *f)
{
    const uint16_t one = 1;
    const int little = *(const unsigned char *)&one == 1;
    if (f == NULL) return 'u'; /* "B" */
    if (*f == '@' || *f == '=')
        f++;
    else if (*f == '<') {
        if (!little) return 0;
        f++;
    } else if (*f == '>' || *f == '!') {
        if (little) return 0;
        f++;
    }
    if (f[0] == '\0' || f[1] != '\0') return 0;
    if (strchr("bhilqn", f[0])) return 'i';
    if (strchr("BHILQN", f[0])) return 'u';
    if (strchr("efd", f[0])) return 'f';
    if (f[0] == '?') return 'b';
    return 0;
}

/* 0 when the buffer `view` (of argument `arg` of kernel `fn`) holds items
 * of class `cls` ('i', 'u', 'f', 'b' as format_class gives; 'n': any of
 * them) and of `size` bytes (0: any) in native byte order; else -1 with a
 * TypeError set. A buffer not taken (obj NULL: an argument None) passes. */
static int check_buf(const Py_buffer *view, char cls, Py_ssize_t size, const char *fn,
                     const char *arg)
{
    if (view->obj == NULL) return 0;
    if (!PyBuffer_IsContiguous(view, 'C')) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a C-contiguous buffer; got one of "
                     "%d dimensions that is not", fn, arg, view->ndim);
        return -1;
    }
    char got = format_class(view->format);
    if (got != 0 && (cls == 'n' || got == cls) && (size == 0 || view->itemsize == size))
        return 0;
    const char *names = cls == 'i'   ? "signed integers"
                        : cls == 'u' ? "unsigned integers"
                        : cls == 'f' ? "floating-point numbers"
                        : cls == 'b' ? "booleans"
                                     : "numbers";
    char want[32] = "";
    if (size) PyOS_snprintf(want, sizeof want, " of %zd bytes", size);
    PyErr_Format(PyExc_TypeError,
                 "%s: %s must hold %s%s in native byte order; got items of format "
                 "'%.20s' of %zd bytes",
                 fn, arg, names, want, view->format ? view->format : "B", view->itemsize);
    return -1;
}

/* Tie rules of top_order: the order of items of equal score. */
#define MODE_POSITION 0    /* input position ("average", "first") */
#define MODE_OPTIMISTIC 1  /* larger relevance first, then position */
#define MODE_PESSIMISTIC 2 /* smaller relevance first, then position */

/* ------------------------------------------------------------------------ */
/* Selection: the value at 0-based rank k in descending order.               */
/* ------------------------------------------------------------------------ */

static void insertion_desc(double *a, Py_ssize_t lo, Py_ssize_t hi)
{
    for (Py_ssize_t i = lo + 1; i <= hi; i++) {
        double v = a[i];
        Py_ssize_t j = i - 1;
        while (j >= lo && a[j] < v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static int cmp_desc(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a < b) - (a > b);
}

static double median3(double a, double b, double c)
{
    if (a < b) {
        if (b < c) return b;
        return a < c ? c : a;
    }
    if (a < c) return a;
    return b < c ? c : b;
}

/* The value at rank k (0-based, descending) of a[0..n); a is reordered.
 * Quickselect with a median-of-three pivot and Hoare partitioning (runs of
 * equal values split evenly); after 2 log2(n) + 8 rounds the rest is
 * sorted, so that the worst case stays O(n log n). */
static double select_desc(double *a, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t lo = 0, hi = n - 1;
    int budget = 8;
    for (Py_ssize_t m = n; m > 1; m >>= 1) budget += 2;
    while (hi > lo) {
        if (hi - lo < 16) {
            insertion_desc(a, lo, hi);
            return a[k];
        }
        if (budget-- == 0) {
            qsort(a + lo, (size_t)(hi - lo + 1), sizeof(double), cmp_desc);
            return a[k];
        }
        double p = median3(a[lo], a[lo + (hi - lo) / 2], a[hi]);
        Py_ssize_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] > p) i++;
            while (a[j] < p) j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        /* a[lo..j] >= p, a[i..hi] <= p, and any a[j+1..i-1] == p */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return p;
    }
    return a[k];
}

/* The value at rank k (0-based, descending) of row[0..n) for a small k:
 * one pass keeping the k + 1 largest values seen, sorted, in buf. A value
 * enters only when it beats the current k-th largest, which a row in
 * random order does about (k + 1) log(n / k) times. */
#define SMALL_K 64

static double select_small(const double *row, Py_ssize_t n, Py_ssize_t k, double *buf)
{
    Py_ssize_t size = k + 1;
    for (Py_ssize_t j = 0; j < size; j++) {
        double x = row[j];
        Py_ssize_t i = j;
        while (i > 0 && buf[i - 1] < x) {
            buf[i] = buf[i - 1];
            i--;
        }
        buf[i] = x;
    }
    double v = buf[k];
    for (Py_ssize_t j = size; j < n; j++) {
        double x = row[j];
        if (x > v) {
            Py_ssize_t i = k;
            while (i > 0 && buf[i - 1] < x) {
                buf[i] = buf[i - 1];
                i--;
            }
            buf[i] = x;
            v = buf[k];
        }
    }
    return v;
}

/* A lower bound of the value at rank k (0-based, descending, k < FAN) of
 * row[0..n): the row is dealt into FAN strided columns, and the (k+1)-th
 * largest of the columns' maxima is at most the (k+1)-th largest value (k+1
 * distinct items reach it). The maxima are a branch-free pass the compiler
 * vectorises, and they are put in order by a sorting network, also without
 * branches; few items pass the bound, which are then ranked exactly. */
#define FAN 16

/* One comparator of the network: the larger value to mx[i], the smaller to
 * mx[j]. */
#if defined(__SSE2__) || defined(_M_X64)
#define CE(i, j)                                                             \
    do {                                                                     \
        __m128d a_ = _mm_set_sd(mx[i]), b_ = _mm_set_sd(mx[j]);              \
        mx[i] = _mm_cvtsd_f64(_mm_max_sd(a_, b_));                           \
        mx[j] = _mm_cvtsd_f64(_mm_min_sd(a_, b_));                           \
    } while (0)
#else
#define CE(i, j)                                                             \
    do {                                                                     \
        double a_ = mx[i], b_ = mx[j];                                       \
        mx[i] = a_ > b_ ? a_ : b_;                                           \
        mx[j] = a_ > b_ ? b_ : a_;                                           \
    } while (0)
#endif

static double fan_bound(const double *row, Py_ssize_t n, Py_ssize_t k)
{
    double mx[FAN];
    for (int c = 0; c < FAN; c++) mx[c] = -HUGE_VAL;
    Py_ssize_t j = 0;
    for (; j + FAN <= n; j += FAN)
        for (int c = 0; c < FAN; c++) {
            double x = row[j + c];
            mx[c] = x > mx[c] ? x : mx[c];
        }
    for (int c = 0; j < n; j++, c++) {
        double x = row[j];
        mx[c] = x > mx[c] ? x : mx[c];
    }
    /* Batcher's odd-even merge sort network for 16 inputs (63
     * comparators; Knuth, TAOCP vol. 3, 5.3.4), descending */
    CE(0, 1); CE(2, 3); CE(0, 2); CE(1, 3); CE(1, 2); CE(4, 5);
    CE(6, 7); CE(4, 6); CE(5, 7); CE(5, 6); CE(0, 4); CE(2, 6);
    CE(2, 4); CE(1, 5); CE(3, 7); CE(3, 5); CE(1, 2); CE(3, 4);
    CE(5, 6); CE(8, 9); CE(10, 11); CE(8, 10); CE(9, 11); CE(9, 10);
    CE(12, 13); CE(14, 15); CE(12, 14); CE(13, 15); CE(13, 14); CE(8, 12);
    CE(10, 14); CE(10, 12); CE(9, 13); CE(11, 15); CE(11, 13); CE(9, 10);
    CE(11, 12); CE(13, 14); CE(0, 8); CE(4, 12); CE(4, 8); CE(2, 10);
    CE(6, 14); CE(6, 10); CE(2, 4); CE(6, 8); CE(10, 12); CE(1, 9);
    CE(5, 13); CE(5, 9); CE(3, 11); CE(7, 15); CE(7, 11); CE(3, 5);
    CE(7, 9); CE(11, 13); CE(1, 2); CE(3, 4); CE(5, 6); CE(7, 8);
    CE(9, 10); CE(11, 12); CE(13, 14);
    return mx[k];
}
#undef CE

/* The number of values of a[0..n) above x, n a multiple of 8. */
#if defined(__GNUC__)
typedef double vdouble __attribute__((vector_size(16)));
typedef long long vlong __attribute__((vector_size(16)));

static inline int count_above(const double *a, int n, double x)
{
    vlong acc0 = {0, 0}, acc1 = {0, 0}, acc2 = {0, 0}, acc3 = {0, 0};
    vdouble xv = {x, x};
    for (int j = 0; j < n; j += 8) {
        vdouble w0, w1, w2, w3;
        memcpy(&w0, a + j, sizeof w0);
        memcpy(&w1, a + j + 2, sizeof w1);
        memcpy(&w2, a + j + 4, sizeof w2);
        memcpy(&w3, a + j + 6, sizeof w3);
        acc0 -= (vlong)(w0 > xv); /* true is -1 */
        acc1 -= (vlong)(w1 > xv);
        acc2 -= (vlong)(w2 > xv);
        acc3 -= (vlong)(w3 > xv);
    }
    vlong acc = acc0 + acc1 + acc2 + acc3;
    return (int)(acc[0] + acc[1]);
}
#else
static inline int count_above(const double *a, int n, double x)
{
    int above = 0;
    for (int j = 0; j < n; j++) above += a[j] > x;
    return above;
}
#endif

/* Candidates ranked by counting: above this many, they are sorted. */
#define MAX_COUNTED 64

/* ------------------------------------------------------------------------ */
/* Stable sort of item positions by descending score (then the tie rule).    */
/* ------------------------------------------------------------------------ */

typedef struct {
    const double *s;   /* the row's scores */
    const double *key; /* the row's relevance (tie rules 1 and 2) or NULL */
    int mode;
} order_ctx;

/* Whether position a must come before position b (b after a in the input
 * when they are equal under the rule: a stable sort keeps them). */
static inline int before(const order_ctx *c, int64_t a, int64_t b)
{
    double sa = c->s[a], sb = c->s[b];
    if (sa != sb) return sa > sb;
    if (c->mode == MODE_OPTIMISTIC) return c->key[a] > c->key[b];
    if (c->mode == MODE_PESSIMISTIC) return c->key[a] < c->key[b];
    return 0;
}

static void insertion_positions(const order_ctx *c, int64_t *p, Py_ssize_t n)
{
    for (Py_ssize_t i = 1; i < n; i++) {
        int64_t v = p[i];
        Py_ssize_t j = i - 1;
        while (j >= 0 && before(c, v, p[j])) {
            p[j + 1] = p[j];
            j--;
        }
        p[j + 1] = v;
    }
}

/* Stable merge sort of p[0..n) with scratch tmp[0..n). */
static void sort_positions(const order_ctx *c, int64_t *p, int64_t *tmp, Py_ssize_t n)
{
    if (n <= 24) {
        insertion_positions(c, p, n);
        return;
    }
    Py_ssize_t h = n / 2;
    sort_positions(c, p, tmp, h);
    sort_positions(c, p + h, tmp, n - h);
    if (!before(c, p[h], p[h - 1])) return; /* already in order */
    memcpy(tmp, p, (size_t)h * sizeof(int64_t));
    Py_ssize_t i = 0, j = h, o = 0;
    while (i < h && j < n) {
        if (before(c, p[j], tmp[i]))
            p[o++] = p[j++];
        else
            p[o++] = tmp[i++];
    }
    while (i < h) p[o++] = tmp[i++];
}

/* ------------------------------------------------------------------------ */
/* top_order                                                                 */
/* ------------------------------------------------------------------------ */

/* The result of top_order: three (m, w) matrices in bytearrays, written row
 * by row; w grows when a row needs more columns and shrinks at the end to
 * the longest row. */
typedef struct {
    PyObject *pos, *ys, *ss; /* int64, float64, float64 */
    Py_ssize_t m, w;         /* rows, current width */
    Py_ssize_t width;        /* the longest row written */
} top_result;

/* Row r of the result: the items p[0..c) (columns of the row starting at
 * flat position base), their relevance and scores, then padding. */
static void write_row(top_result *t, Py_ssize_t r, int64_t base, const int64_t *p, Py_ssize_t c,
                      const double *key, const double *s)
{
    int64_t *o = (int64_t *)PyByteArray_AS_STRING(t->pos) + r * t->w;
    double *oy = (double *)PyByteArray_AS_STRING(t->ys) + r * t->w;
    double *os = (double *)PyByteArray_AS_STRING(t->ss) + r * t->w;
    for (Py_ssize_t j = 0; j < c; j++) {
        int64_t at = base + p[j];
        o[j] = at;
        oy[j] = key[at];
        os[j] = s[at];
    }
    for (Py_ssize_t j = c; j < t->w; j++) {
        o[j] = -1;
        oy[j] = 0.0;
        os[j] = -HUGE_VAL;
    }
    if (c > t->width) t->width = c;
}

/* Each of the first `rows` rows moved from width t->w to width w (wider:
 * from the last row back; narrower: from the first row on), new columns
 * padded. */
static void relayout(top_result *t, Py_ssize_t rows, Py_ssize_t w)
{
    int64_t *o = (int64_t *)PyByteArray_AS_STRING(t->pos);
    double *oy = (double *)PyByteArray_AS_STRING(t->ys);
    double *os = (double *)PyByteArray_AS_STRING(t->ss);
    Py_ssize_t keep = w < t->w ? w : t->w;
    for (Py_ssize_t i = 0; i < rows; i++) {
        Py_ssize_t r = w > t->w ? rows - 1 - i : i;
        memmove(o + r * w, o + r * t->w, (size_t)keep * sizeof(int64_t));
        memmove(oy + r * w, oy + r * t->w, (size_t)keep * sizeof(double));
        memmove(os + r * w, os + r * t->w, (size_t)keep * sizeof(double));
        for (Py_ssize_t j = keep; j < w; j++) {
            o[r * w + j] = -1;
            oy[r * w + j] = 0.0;
            os[r * w + j] = -HUGE_VAL;
        }
    }
    t->w = w;
}

/* The result resized to width w, its first `rows` rows kept. Needs the GIL;
 * returns 0, or -1 with an exception set. */
static int resize_result(top_result *t, Py_ssize_t rows, Py_ssize_t w)
{
    Py_ssize_t cells = t->m * w;
    if (w > t->w) {
        if (PyByteArray_Resize(t->pos, cells * (Py_ssize_t)sizeof(int64_t)) < 0 ||
            PyByteArray_Resize(t->ys, cells * (Py_ssize_t)sizeof(double)) < 0 ||
            PyByteArray_Resize(t->ss, cells * (Py_ssize_t)sizeof(double)) < 0)
            return -1;
        relayout(t, rows, w);
        return 0;
    }
    relayout(t, rows, w);
    if (PyByteArray_Resize(t->pos, cells * (Py_ssize_t)sizeof(int64_t)) < 0 ||
        PyByteArray_Resize(t->ys, cells * (Py_ssize_t)sizeof(double)) < 0 ||
        PyByteArray_Resize(t->ss, cells * (Py_ssize_t)sizeof(double)) < 0)
        return -1;
    return 0;
}

PyDoc_STRVAR(top_order_doc,
"top_order(s, y, n_items, m, L, k, mode, whole_group) -> (pos, ys, ss, W)\n\n"
"For each row of the C-contiguous (m, L) float64 scores s and relevance\n"
"y: the row's items in rank order, by descending score and then the tie\n"
"rule (mode 0: input position; 1: larger relevance first; 2: smaller\n"
"relevance first). Only the items of the first k ranks are listed, and\n"
"with whole_group the whole tie group holding rank k. Rows have the\n"
"first n_items[i] columns as items (n_items an int64 buffer, or None:\n"
"all L). Returns bytearrays of (m, W) matrices, W the longest row's\n"
"count: the items' flat positions (int64, row * L + column; -1 past a\n"
"row's end), their relevance (0 past the end) and their scores (-inf\n"
"past the end).");

static PyObject *top_order(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer sb = {0}, kb = {0}, nb = {0};
    PyObject *key_obj, *n_obj;
    Py_ssize_t m, L, k;
    int mode, whole_group;
    if (!PyArg_ParseTuple(args, "O&OOnnnip", buf_in, &sb, &key_obj, &n_obj, &m, &L, &k, &mode,
        &whole_group))
        return NULL;
    PyObject *result = NULL;
    const double *key = NULL;
    const int64_t *n_items = NULL;
    if (!buf_in(key_obj, &kb)) goto done;
    key = (const double *)kb.buf;
    if (n_obj != Py_None) {
        if (!buf_in(n_obj, &nb)) goto done;
        n_items = (const int64_t *)nb.buf;
    }
    if (check_buf(&sb, 'f', 8, "top_order", "s") || check_buf(&kb, 'f', 8, "top_order", "y") ||
        check_buf(&nb, 'i', 8, "top_order", "n_items"))
        goto done;
    if (m < 0 || L < 1 || k < 1 || sb.len < m * L * (Py_ssize_t)sizeof(double) ||
        kb.len < m * L * (Py_ssize_t)sizeof(double) ||
        (n_items != NULL && nb.len < m * (Py_ssize_t)sizeof(int64_t))) {
        PyErr_SetString(PyExc_ValueError, "top_order: inconsistent buffers");
        goto done;
    }
    const double *s = (const double *)sb.buf;

    int failed = 0;
    int64_t *cand = NULL, *tmp = NULL;
    double *work = NULL;
    /* rows start this wide: the k ranks and a few items of a tie group */
    Py_ssize_t w0 = whole_group ? k + 8 : k;
    if (w0 > L) w0 = L;
    top_result t = {NULL, NULL, NULL, m, w0, 0};
    t.pos = PyByteArray_FromStringAndSize(NULL, m * w0 * (Py_ssize_t)sizeof(int64_t));
    t.ys = PyByteArray_FromStringAndSize(NULL, m * w0 * (Py_ssize_t)sizeof(double));
    t.ss = PyByteArray_FromStringAndSize(NULL, m * w0 * (Py_ssize_t)sizeof(double));
    if (!t.pos || !t.ys || !t.ss) goto fail;

    Py_BEGIN_ALLOW_THREADS
    cand = PyMem_RawMalloc((size_t)L * sizeof(int64_t));
    tmp = PyMem_RawMalloc((size_t)(L + 1) * sizeof(int64_t)); /* + a spare slot */
    work = PyMem_RawMalloc((size_t)(L + 8) * sizeof(double));
    if (!cand || !tmp || !work) failed = 1;
    for (Py_ssize_t r = 0; r < m && !failed; r++) {
        const double *row = s + r * L;
        Py_ssize_t n = n_items ? (Py_ssize_t)n_items[r] : L;
        if (n > L) n = L;
        if (n < 0) n = 0;
        Py_ssize_t c = 0;
        const double *krow = key + r * L;
        const int64_t *listed_at = cand;
        if (k < FAN && k < n) {
            /* the items that pass the bound, then each one's place among
             * them by counting: the items above it, and the tied ones
             * that the rule puts first */
            double bound = fan_bound(row, n, k - 1);
            for (Py_ssize_t j = 0; j < n; j++) {
                cand[c] = j;
                work[c] = row[j];
                c += row[j] >= bound;
            }
            if (c <= MAX_COUNTED) {
                Py_ssize_t listed = 0;
                /* padded to a multiple of 8 with values no item is below */
                int padded = (int)((c + 7) & ~(Py_ssize_t)7);
                for (int j = (int)c; j < padded; j++) work[j] = -HUGE_VAL;
                /* per count of items above: the items of that score placed
                 * so far (equal scores have equal counts), so that tied
                 * items keep their input order */
                int seen[MAX_COUNTED];
                memset(seen, 0, (size_t)c * sizeof(int));
                for (Py_ssize_t i = 0; i < c; i++) {
                    double x = work[i];
                    Py_ssize_t first = 0;
                    int above = count_above(work, padded, x);
                    if (mode == MODE_POSITION) {
                        first = seen[above]++;
                    } else {
                        double kx = krow[cand[i]];
                        for (Py_ssize_t j = 0; j < c; j++) {
                            double kj = krow[cand[j]];
                            int better = mode == MODE_OPTIMISTIC ? kj > kx : kj < kx;
                            first += (work[j] == x) & (better | ((kj == kx) & (j < i)));
                        }
                    }
                    Py_ssize_t at = above + first;
                    /* without a branch: an item that is not listed is
                     * written to the spare slot tmp[L] */
                    int keep = (above < k) & (whole_group | (at < k));
                    tmp[keep ? at : L] = cand[i];
                    listed += keep;
                }
                c = listed;
                listed_at = tmp;
                goto write;
            }
            c = 0;
        }
        if (k >= n) {
            for (Py_ssize_t j = 0; j < n; j++) cand[c++] = j;
        } else {
            double v;
            if (k < SMALL_K) {
                v = select_small(row, n, k - 1, work);
            } else {
                memcpy(work, row, (size_t)n * sizeof(double));
                v = select_desc(work, n, k - 1);
            }
            for (Py_ssize_t j = 0; j < n; j++)
                if (row[j] >= v) cand[c++] = j;
        }
        order_ctx ctx = {row, krow, mode};
        sort_positions(&ctx, cand, tmp, c);
        if (!whole_group && c > k) c = k;
    write:
        if (c > t.w) {
            /* a wider row: the result grows (rarely: a long tie group) */
            Py_ssize_t grown = t.w * 2 > c ? t.w * 2 : c;
            if (grown > L) grown = L;
            Py_BLOCK_THREADS
            failed = resize_result(&t, r, grown) < 0;
            Py_UNBLOCK_THREADS
            if (failed) break;
        }
        write_row(&t, r, (int64_t)r * L, listed_at, c, key, s);
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(cand);
    PyMem_RawFree(tmp);
    PyMem_RawFree(work);

    if (failed) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto fail;
    }
    /* down to the longest row */
    if (t.width < t.w && resize_result(&t, m, t.width) < 0) goto fail;
    result = Py_BuildValue("(NNNn)", t.pos, t.ys, t.ss, t.width);
    goto done;
fail:
    Py_XDECREF(t.pos);
    Py_XDECREF(t.ys);
    Py_XDECREF(t.ss);
done:
    PyBuffer_Release(&sb);
    if (kb.obj) PyBuffer_Release(&kb);
    if (nb.obj) PyBuffer_Release(&nb);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Grouping rows by query: a stable counting sort in phases.                 */
/* ------------------------------------------------------------------------ */

/* v as an integer when it is one in 0 .. top (top < 2**31), else -1,
 * without a branch and without the undefined behaviour of converting NaN
 * or a value out of range to int. */
static inline int small_integer(double v, int top)
{
#if defined(__SSE2__) || defined(_M_X64)
    int g = _mm_cvttsd_si32(_mm_set_sd(v)); /* NaN, out of range: INT_MIN */
#else
    int g = v >= 0.0 && v <= (double)top ? (int)v : -1;
#endif
    int wrong = ((double)g != v) | ((unsigned)g > (unsigned)top);
    return wrong ? -1 : g;
}

/* Codes are integers of any width and signedness, read as their offset from
 * lo in 64-bit unsigned arithmetic (so that a signed code below lo wraps to
 * a large offset, out of range like one above). kind is the itemsize, negated
 * for signed integers. BODY is instantiated once per kind, with OFF(i) the
 * offset of row i. */
#define CODE_KINDS(kind, BODY)                                               \
    switch (kind) {                                                          \
    case 1: { typedef uint8_t CT; typedef uint64_t CW; BODY } break;         \
    case -1: { typedef int8_t CT; typedef int64_t CW; BODY } break;          \
    case 2: { typedef uint16_t CT; typedef uint64_t CW; BODY } break;        \
    case -2: { typedef int16_t CT; typedef int64_t CW; BODY } break;         \
    case 4: { typedef uint32_t CT; typedef uint64_t CW; BODY } break;        \
    case -4: { typedef int32_t CT; typedef int64_t CW; BODY } break;         \
    case 8: { typedef uint64_t CT; typedef uint64_t CW; BODY } break;        \
    default: { typedef int64_t CT; typedef int64_t CW; BODY } break;         \
    }
#define OFF(i) ((uint64_t)(CW)((const CT *)codes)[i] - lo)

static int valid_code_kind(int kind)
{
    return kind == 1 || kind == -1 || kind == 2 || kind == -2 || kind == 4 || kind == -4 ||
           kind == 8 || kind == -8;
}

/* check_buf of codes of a kind (kind < 0: signed integers of -kind bytes;
 * else unsigned of kind bytes); a kind of no other size passes here, to be
 * refused with the kernel's other arguments. */
static int check_codes(const Py_buffer *view, int kind, const char *fn)
{
    if (!valid_code_kind(kind)) return 0; /* refused with the other arguments */
    return check_buf(view, kind < 0 ? 'i' : 'u', abs(kind), fn, "codes");
}

/* count_codes keeps four sets of counters on the stack up to this many */
#define LOCAL_COUNTS 256

PyDoc_STRVAR(count_codes_doc,
"count_codes(codes, kind, lo, start, stop, shift, top, counts) -> bool\n\n"
"The number of rows start .. stop - 1 of each high digit of their code:\n"
"counts (an int64 buffer) is overwritten with the number of rows whose\n"
"code minus lo, shifted right by shift bits, is 0, 1, ... (shift 0: of\n"
"each code). codes: integers of |kind| bytes (kind < 0: signed); lo: an\n"
"unsigned 64-bit offset. Returns whether every code minus lo is below top\n"
"(else counts is not meaningful); top must not exceed the entries of\n"
"counts shifted left by shift bits.");

static PyObject *count_codes(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer cb = {0}, ob = {0};
    int kind;
    unsigned long long lo_arg;
    Py_ssize_t start, stop;
    int shift;
    unsigned long long top_arg;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&iKnniKO&", buf_in, &cb, &kind, &lo_arg, &start, &stop, &shift,
        &top_arg, buf_out, &ob))
        return NULL;
    if (check_codes(&cb, kind, "count_codes") || check_buf(&ob, 'i', 8, "count_codes", "counts"))
        goto done;
    Py_ssize_t n_counts = ob.len / (Py_ssize_t)sizeof(int64_t);
    if (!valid_code_kind(kind) || cb.len % abs(kind) || start < 0 || stop < start ||
        stop > cb.len / abs(kind) || n_counts < 1 || shift < 0 || shift > 32 || top_arg < 1 ||
        (top_arg - 1) >> shift >= (unsigned long long)n_counts) {
        PyErr_SetString(PyExc_ValueError, "count_codes: inconsistent arguments");
        goto done;
    }
    const void *codes = cb.buf;
    const uint64_t lo = (uint64_t)lo_arg, top = (uint64_t)top_arg;
    int64_t *counts = ob.buf;
    int out = 0;
    Py_BEGIN_ALLOW_THREADS
    if (n_counts <= LOCAL_COUNTS) {
        /* four rows at a time into four sets of counters (on the stack): a
         * counter is then seldom advanced by two rows in flight at once */
        int64_t local[4][LOCAL_COUNTS];
        memset(local, 0, sizeof local);
        Py_ssize_t i = start;
        CODE_KINDS(kind, {
            for (; i + 4 <= stop; i += 4) {
                uint64_t o0 = OFF(i);
                uint64_t o1 = OFF(i + 1);
                uint64_t o2 = OFF(i + 2);
                uint64_t o3 = OFF(i + 3);
                if ((o0 >= top) | (o1 >= top) | (o2 >= top) | (o3 >= top)) break;
                local[0][o0 >> shift]++;
                local[1][o1 >> shift]++;
                local[2][o2 >> shift]++;
                local[3][o3 >> shift]++;
            }
            for (; i < stop; i++) {
                uint64_t off = OFF(i);
                if (off >= top) break;
                local[0][off >> shift]++;
            }
        })
        out = i < stop;
        for (Py_ssize_t c = 0; c < n_counts; c++)
            counts[c] = local[0][c] + local[1][c] + local[2][c] + local[3][c];
    } else {
        memset(counts, 0, (size_t)n_counts * sizeof(int64_t));
        CODE_KINDS(kind, {
            for (Py_ssize_t i = start; i < stop; i++) {
                uint64_t off = OFF(i);
                if (off >= top) {
                    out = 1;
                    break;
                }
                counts[off >> shift]++;
            }
        })
    }
    Py_END_ALLOW_THREADS
    result = PyBool_FromLong(!out);
done:
    PyBuffer_Release(&cb);
    PyBuffer_Release(&ob);
    return result;
}

#define MAX_COLUMNS 8

/* Buffers of the columns of a move, taken from Python sequences. */
typedef struct {
    Py_ssize_t n_cols;
    Py_buffer in[MAX_COLUMNS], out[MAX_COLUMNS];
    int n_in, n_out;
} column_set;

static void release_columns(column_set *cs)
{
    for (int c = 0; c < cs->n_in; c++) PyBuffer_Release(&cs->in[c]);
    for (int c = 0; c < cs->n_out; c++) PyBuffer_Release(&cs->out[c]);
    cs->n_in = cs->n_out = 0;
}

/* The buffers of `inputs` (may be NULL: none) and `outputs`; 0, or -1 with
 * an exception set. */
static int take_columns(column_set *cs, PyObject *inputs, PyObject *outputs)
{
    cs->n_in = cs->n_out = 0;
    cs->n_cols = PySequence_Size(outputs);
    if (cs->n_cols < 0) return -1;
    if (cs->n_cols > MAX_COLUMNS || (inputs && PySequence_Size(inputs) != cs->n_cols)) {
        PyErr_SetString(PyExc_ValueError, "inconsistent columns");
        return -1;
    }
    for (Py_ssize_t c = 0; c < cs->n_cols; c++) {
        PyObject *item;
        if (inputs) {
            item = PySequence_GetItem(inputs, c);
            if (!item) return -1;
            int bad = !buf_in(item, &cs->in[c]);
            Py_DECREF(item);
            if (bad) return -1;
            cs->n_in++;
        }
        item = PySequence_GetItem(outputs, c);
        if (!item) return -1;
        int bad = !buf_out(item, &cs->out[c]);
        Py_DECREF(item);
        if (bad) return -1;
        cs->n_out++;
    }
    return 0;
}

/* check_buf of a move's columns: inputs (if taken) and outputs of sizes[c]
 * bytes an item; with `convert`, the first input holds float64 and the
 * first output unsigned integers (grades, or tags). */
static int check_columns(const column_set *cs, const Py_ssize_t *sizes, int convert,
                         const char *fn)
{
    for (Py_ssize_t c = 0; c < cs->n_cols; c++) {
        int grades = convert && c == 0;
        if (c < cs->n_in &&
            check_buf(&cs->in[c], grades ? 'f' : 'n', grades ? 8 : sizes[c], fn, "a column"))
            return -1;
        if (c < cs->n_out &&
            check_buf(&cs->out[c], grades ? 'u' : 'n', sizes[c], fn, "an output column"))
            return -1;
    }
    return 0;
}

/* Whether a move's columns start with the usual pair, relevance (8 bytes,
 * or with `bytes` 1) and scores (8 bytes), which move together in the loop
 * that finds the rows' places. */
static int is_pair(Py_ssize_t n_cols, const Py_ssize_t *sizes, int bytes)
{
    return n_cols >= 2 && sizes[0] == (bytes ? 1 : 8) && sizes[1] == 8;
}

/* Whether relevance written as grades (`convert`) goes out as tags of
 * `size` bytes, the grade in the lowest byte and the row's low digit above
 * it (one stream of writes less than a byte and a low digit apart). */
static int is_tag(int convert, Py_ssize_t size)
{
    return convert && (size == 2 || size == 4);
}

/* Row i's high digit and its place p (next[digit], which advances); the
 * loop stops at the first digit or place out of range (`out` set). Branches
 * that are never taken cost less here than clamping every row's digit and
 * place and keeping the largest seen. */
#define PLACE_ROW(i)                                                         \
    uint64_t off = OFF(i);                                                   \
    uint64_t h = off >> shift;                                               \
    if (h >= n_digits_u) {                                                   \
        out = 1;                                                             \
        break;                                                               \
    }                                                                        \
    uint64_t p = (uint64_t)next[h]++;                                        \
    if (p >= n_out_u) {                                                      \
        out = 1;                                                             \
        break;                                                               \
    }

#define PAIR_LOOP(STORE_LOW, STORE_Y)                                        \
    CODE_KINDS(kind, {                                                       \
        for (Py_ssize_t i = start; i < stop; i++) {                          \
            PLACE_ROW(i)                                                     \
            if (code_counts) code_counts[off]++;                             \
            STORE_LOW                                                        \
            STORE_Y                                                          \
            s_out[p] = s_in[i];                                              \
        }                                                                    \
    })
/* Row i's relevance as a grade g (0 .. 255, else -1, which makes `grades`
 * negative for good). */
#define GRADE_OF(i)                                                          \
    int g = small_integer(y_in[i], 255);                                     \
    grades |= g;
#define PAIR_Y(STORE_LOW)                                                    \
    if (convert)                                                             \
        PAIR_LOOP(STORE_LOW, {                                               \
            GRADE_OF(i)                                                      \
            y8_out[p] = (uint8_t)g;                                          \
        })                                                                   \
    else                                                                     \
        PAIR_LOOP(STORE_LOW, y64_out[p] = y64_in[i];)
#define LOW_STORE(T) ((T *)low_buf)[p] = (T)(off & mask);

#define COLUMN_LOOP(STORE)                                                   \
    CODE_KINDS(kind, {                                                       \
        for (Py_ssize_t i = start; i < stop; i++) {                          \
            PLACE_ROW(i)                                                     \
            STORE                                                            \
        }                                                                    \
    })
#define COLUMN_STORE(T) ((T *)dest)[p] = ((const T *)in)[i];

/* The first phase with tags (see move_high), in functions of their own per
 * code kind and tag width: with its few variables in registers the loop
 * runs faster (by about 6% on 2M rows) than inside move_high, where the
 * compiler keeps some of them (the grades seen among them) in memory.
 * Returns 0, or -1 at the first digit or place out of range. */
#define TAG_MOVE(NAME, CODE_T, WIDE_T, T)                                    \
    static int NAME(const void *codes, uint64_t lo, Py_ssize_t start,        \
                    Py_ssize_t stop, int shift, int64_t *next,               \
                    uint64_t n_digits_u, uint64_t n_out_u,                   \
                    const double *y_in, const uint64_t *s_in, void *tag_v,   \
                    uint64_t *s_out, int64_t *counts, int *grades_out)       \
    {                                                                        \
        typedef CODE_T CT;                                                   \
        typedef WIDE_T CW;                                                   \
        const uint64_t mask = ((uint64_t)1 << shift) - 1;                    \
        T *tag_out = tag_v;                                                  \
        int grades = 0, out = 0;                                             \
        for (Py_ssize_t i = start; i < stop; i++) {                          \
            PLACE_ROW(i)                                                     \
            counts[off]++;                                                   \
            GRADE_OF(i)                                                      \
            tag_out[p] = (T)((uint8_t)g | (off & mask) << 8);                \
            s_out[p] = s_in[i];                                              \
        }                                                                    \
        *grades_out = grades;                                                \
        return -out;                                                         \
    }
#define TAG_MOVES(SUFFIX, CODE_T, WIDE_T)                                    \
    TAG_MOVE(tag_move_2_##SUFFIX, CODE_T, WIDE_T, uint16_t)                  \
    TAG_MOVE(tag_move_4_##SUFFIX, CODE_T, WIDE_T, uint32_t)
TAG_MOVES(u8, uint8_t, uint64_t)
TAG_MOVES(i8, int8_t, int64_t)
TAG_MOVES(u16, uint16_t, uint64_t)
TAG_MOVES(i16, int16_t, int64_t)
TAG_MOVES(u32, uint32_t, uint64_t)
TAG_MOVES(i32, int32_t, int64_t)
TAG_MOVES(u64, uint64_t, uint64_t)
TAG_MOVES(i64, int64_t, int64_t)
#undef TAG_MOVES
#undef TAG_MOVE

typedef int (*tag_move_fn)(const void *, uint64_t, Py_ssize_t, Py_ssize_t, int, int64_t *,
                           uint64_t, uint64_t, const double *, const uint64_t *, void *,
                           uint64_t *, int64_t *, int *);

/* The tag move for codes of kind `kind` and tags of `size` bytes (2 or 4). */
static tag_move_fn tag_move_of(int kind, Py_ssize_t size)
{
    int two = size == 2;
    switch (kind) {
    case 1: return two ? tag_move_2_u8 : tag_move_4_u8;
    case -1: return two ? tag_move_2_i8 : tag_move_4_i8;
    case 2: return two ? tag_move_2_u16 : tag_move_4_u16;
    case -2: return two ? tag_move_2_i16 : tag_move_4_i16;
    case 4: return two ? tag_move_2_u32 : tag_move_4_u32;
    case -4: return two ? tag_move_2_i32 : tag_move_4_i32;
    case 8: return two ? tag_move_2_u64 : tag_move_4_u64;
    default: return two ? tag_move_2_i64 : tag_move_4_i64;
    }
}

PyDoc_STRVAR(move_high_doc,
"move_high(codes, kind, lo, start, stop, shift, next, columns, outputs,\n"
"          sizes, convert, low, counts) -> bool\n\n"
"Moves rows start .. stop - 1 of each column to its output, by the high\n"
"digit of their code ((code - lo) >> shift): a row of digit h goes to\n"
"position next[h], which then advances (next: an int64 buffer, one entry\n"
"per digit; rows keep their order within a digit). codes, kind and lo as\n"
"for count_codes; columns and outputs: sequences of buffers of whole\n"
"columns, sizes the bytes of an output item (1, 2, 4 or 8). With convert,\n"
"the first column is float64, its output uint8 (size 1) and the second\n"
"column's items have 8 bytes: the first column's values are written as\n"
"bytes, and the result says whether every one was an integer in 0 .. 255\n"
"(else True). low (a buffer of uint8, uint16 or uint32 as long as the\n"
"outputs, or None): each moved row's low digit ((code - lo) mod 2**shift)\n"
"written at its new position. With convert, the first output's items may\n"
"instead be tags of 2 or 4 bytes (sizes[0]), low None: the grade in a\n"
"tag's lowest byte, the row's low digit above it (shift at most 8 or 24).\n"
"counts (an int64 buffer of at least next's entries shifted left by shift\n"
"bits, or None; not None with tags): the entry of each moved row's code\n"
"minus lo advances.\n"
"Raises ValueError when a code's digit or a position is out of range (the\n"
"outputs then hold no meaningful rows).");

static PyObject *move_high(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer cb = {0}, nb = {0}, lb = {0}, kb = {0};
    column_set cs = {0};
    int kind, shift, convert;
    unsigned long long lo_arg;
    Py_ssize_t start, stop;
    PyObject *columns, *outputs, *size_list, *low_obj, *counts_obj;
    PyObject *result = NULL;
    Py_ssize_t sizes[MAX_COLUMNS];
    int64_t *first_next = NULL;
    if (!PyArg_ParseTuple(args, "O&iKnniO&OOOpOO", buf_in, &cb, &kind, &lo_arg, &start, &stop,
        &shift, buf_out, &nb, &columns, &outputs, &size_list, &convert, &low_obj, &counts_obj))
        return NULL;
    if (take_columns(&cs, columns, outputs) < 0) goto done;
    if (low_obj != Py_None && !buf_out(low_obj, &lb)) goto done;
    if (counts_obj != Py_None && !buf_out(counts_obj, &kb))
        goto done;
    if (check_codes(&cb, kind, "move_high") || check_buf(&nb, 'i', 8, "move_high", "next") ||
        check_buf(&lb, 'u', 0, "move_high", "low") || check_buf(&kb, 'i', 8, "move_high", "counts"))
        goto done;
    Py_ssize_t n_digits = nb.len / (Py_ssize_t)sizeof(int64_t);
    if (!valid_code_kind(kind) || cb.len % abs(kind) || start < 0 || stop < start ||
        stop > cb.len / abs(kind) || shift < 0 || shift > 63 || n_digits < 1 || cs.n_cols < 1 ||
        PySequence_Size(size_list) != cs.n_cols ||
        (kb.obj && n_digits > (kb.len / (Py_ssize_t)sizeof(int64_t)) >> shift)) {
        PyErr_SetString(PyExc_ValueError, "move_high: inconsistent arguments");
        goto done;
    }
    Py_ssize_t n_in = cb.len / abs(kind), n_out = -1;
    for (Py_ssize_t c = 0; c < cs.n_cols; c++) {
        PyObject *item = PySequence_GetItem(size_list, c);
        if (!item) goto done;
        sizes[c] = PyLong_AsSsize_t(item);
        Py_DECREF(item);
        if (sizes[c] == -1 && PyErr_Occurred()) goto done;
    }
    int tag = cs.n_cols >= 2 && sizes[1] == 8 && is_tag(convert, sizes[0]);
    if (convert && !tag && !is_pair(cs.n_cols, sizes, 1)) {
        PyErr_SetString(PyExc_ValueError, "move_high: inconsistent arguments");
        goto done;
    }
    if (tag && (low_obj != Py_None || counts_obj == Py_None || shift > 8 * sizes[0] - 8)) {
        PyErr_SetString(PyExc_ValueError, "move_high: inconsistent arguments");
        goto done;
    }
    if (check_columns(&cs, sizes, convert, "move_high")) goto done;
    for (Py_ssize_t c = 0; c < cs.n_cols; c++) {
        Py_ssize_t in_size = convert && c == 0 ? 8 : sizes[c];
        if (n_out < 0) n_out = cs.out[c].len / (sizes[c] > 0 ? sizes[c] : 1);
        if ((sizes[c] != 1 && sizes[c] != 2 && sizes[c] != 4 && sizes[c] != 8) ||
            cs.in[c].len != n_in * in_size || cs.out[c].len != n_out * sizes[c]) {
            PyErr_SetString(PyExc_ValueError, "move_high: inconsistent buffers");
            goto done;
        }
    }
    int low_size = lb.obj ? (int)(lb.len / (n_out > 0 ? n_out : 1)) : 0;
    if (lb.obj && (lb.len != n_out * low_size || lb.itemsize != low_size ||
                   (low_size != 1 && low_size != 2 && low_size != 4))) {
        PyErr_SetString(PyExc_ValueError, "move_high: inconsistent buffers");
        goto done;
    }
    if (n_out == 0) {
        if (stop > start) {
            PyErr_SetString(PyExc_ValueError, "move_high: a digit or a position is out of range");
            goto done;
        }
        result = PyBool_FromLong(1);
        goto done;
    }
    int pair = tag || is_pair(cs.n_cols, sizes, convert);
    if (cs.n_cols > (pair ? 2 : 1) || !pair) {
        /* the columns beyond the pair are moved one at a time, each from
         * the positions the digits start at */
        first_next = PyMem_RawMalloc((size_t)n_digits * sizeof(int64_t));
        if (!first_next) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(first_next, nb.buf, (size_t)n_digits * sizeof(int64_t));
    }
    const void *codes = cb.buf;
    const uint64_t lo = (uint64_t)lo_arg, mask = shift ? ((uint64_t)1 << shift) - 1 : 0;
    const uint64_t n_digits_u = (uint64_t)n_digits, n_out_u = (uint64_t)n_out;
    int64_t *next = nb.buf;
    int64_t *code_counts = kb.obj ? kb.buf : NULL;
    void *low_buf = lb.obj ? lb.buf : NULL;
    int grades = 0, out = 0;
    Py_BEGIN_ALLOW_THREADS
    if (pair) {
        const double *y_in = cs.in[0].buf;
        const uint64_t *y64_in = cs.in[0].buf, *s_in = cs.in[1].buf;
        uint8_t *y8_out = cs.out[0].buf;
        uint64_t *y64_out = cs.out[0].buf, *s_out = cs.out[1].buf;
        if (tag)
            out = tag_move_of(kind, sizes[0])(codes, lo, start, stop, shift, next, n_digits_u,
                                              n_out_u, y_in, s_in, cs.out[0].buf, s_out,
                                              code_counts, &grades) < 0;
        else switch (low_size) {
        case 1: PAIR_Y(LOW_STORE(uint8_t)) break;
        case 2: PAIR_Y(LOW_STORE(uint16_t)) break;
        case 4: PAIR_Y(LOW_STORE(uint32_t)) break;
        default: PAIR_Y() break;
        }
    }
    if (!pair && code_counts) {
        CODE_KINDS(kind, {
            for (Py_ssize_t i = start; i < stop; i++) {
                uint64_t off = OFF(i);
                if ((off >> shift) >= n_digits_u) {
                    out = 1;
                    break;
                }
                code_counts[off]++;
            }
        })
    }
    for (Py_ssize_t c = pair ? 2 : 0; c < cs.n_cols && !out; c++) {
        const void *in = cs.in[c].buf;
        void *dest = cs.out[c].buf;
        memcpy(next, first_next, (size_t)n_digits * sizeof(int64_t));
        switch (sizes[c]) {
        case 1: COLUMN_LOOP(COLUMN_STORE(uint8_t)) break;
        case 2: COLUMN_LOOP(COLUMN_STORE(uint16_t)) break;
        case 4: COLUMN_LOOP(COLUMN_STORE(uint32_t)) break;
        default: COLUMN_LOOP(COLUMN_STORE(uint64_t)) break;
        }
    }
    if (!pair && low_buf && !out) {
        memcpy(next, first_next, (size_t)n_digits * sizeof(int64_t));
        switch (low_size) {
        case 1: COLUMN_LOOP(LOW_STORE(uint8_t)) break;
        case 2: COLUMN_LOOP(LOW_STORE(uint16_t)) break;
        default: COLUMN_LOOP(LOW_STORE(uint32_t)) break;
        }
    }
    Py_END_ALLOW_THREADS
    if (out) {
        PyErr_SetString(PyExc_ValueError, "move_high: a digit or a position is out of range");
        goto done;
    }
    result = PyBool_FromLong(grades >= 0);
done:
    PyMem_RawFree(first_next);
    release_columns(&cs);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&nb);
    if (lb.obj) PyBuffer_Release(&lb);
    if (kb.obj) PyBuffer_Release(&kb);
    return result;
}

/* A row to its place p among m rows: lnext[d], which advances, d being
 * `digit` (one of count codes); the loop stops at the first d or p out of
 * range (`over` set), as PLACE_ROW's. LOW_PLACE: row i's d is base plus
 * its low digit (uint LT in low_buf). */
#define LOW_PLACE(LT, base) PLACE_AT((base) + ((const LT *)low_buf)[i])
#define PLACE_AT(digit)                                                      \
    uint64_t d = (digit);                                                    \
    if (d >= (uint64_t)count) {                                              \
        over = 1;                                                            \
        break;                                                               \
    }                                                                        \
    uint64_t p = (uint64_t)lnext[d]++;                                       \
    if (p >= (uint64_t)m) {                                                  \
        over = 1;                                                            \
        break;                                                               \
    }
#define LOW_PAIR(LT, YT)                                                     \
    for (int64_t i = a; i < z; i++) {                                        \
        LOW_PLACE(LT, 0)                                                     \
        ((YT *)y_tmp)[p] = ((const YT *)y_out)[i];                           \
        s_tmp[p] = s_out[i];                                                 \
    }
#define LOW_POSITIONS(LT)                                                    \
    for (int64_t i = a; i < z; i++) {                                        \
        LOW_PLACE(LT, 0)                                                     \
        pos[i - a] = (uint32_t)p;                                            \
    }
#define LOW_COLUMN(T)                                                        \
    for (Py_ssize_t j = 0; j < m; j++) ((T *)tmp)[pos[j]] = ((const T *)o)[j];

PyDoc_STRVAR(move_low_doc,
"move_low(starts, shift, bounds, skew, low, columns, sizes, scratch)\n\n"
"The second phase of the grouping, after move_high: the rows of each high\n"
"digit h, found at bounds[h] + h * skew .. bounds[h + 1] + h * skew - 1\n"
"of every column (bounds: int64, one entry per digit and one more; skew:\n"
"the items by which each digit's rows were moved apart), go to bounds[h]\n"
".. bounds[h + 1] - 1, each to the place of its code: code (h << shift) +\n"
"d starts at starts[(h << shift) + d] (int64, one entry per code), d being\n"
"the row's low digit in low (uint8, uint16 or uint32, laid out as the\n"
"columns); rows keep their order within a code. Digits are moved in order,\n"
"so that none overwrites rows not yet moved. columns: a sequence of\n"
"writable buffers, of sizes bytes an item. scratch: a writable buffer of,\n"
"for every row of the largest digit, 8 + sizes[0] bytes when the columns\n"
"are relevance (1 or 8 bytes) and scores (8 bytes), else 12.");

static PyObject *move_low(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer sb = {0}, bb = {0}, lb = {0}, xb = {0};
    column_set cs = {0};
    int shift;
    PyObject *columns, *size_list;
    PyObject *result = NULL;
    Py_ssize_t sizes[MAX_COLUMNS];
    int64_t *lnext = NULL;
    Py_ssize_t skew;
    if (!PyArg_ParseTuple(args, "O&iO&nO&OOO&", buf_in, &sb, &shift, buf_in, &bb, &skew,
        buf_in, &lb, &columns, &size_list, buf_out, &xb))
        return NULL;
    if (take_columns(&cs, NULL, columns) < 0) goto done;
    if (check_buf(&sb, 'i', 8, "move_low", "starts") || check_buf(&bb, 'i', 8, "move_low",
        "bounds") ||
        check_buf(&lb, 'u', 0, "move_low", "low") || check_buf(&xb, 'u', 1, "move_low", "scratch"))
        goto done;
    Py_ssize_t n_codes = sb.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t n_digits = bb.len / (Py_ssize_t)sizeof(int64_t) - 1;
    if (shift < 1 || shift > 32 || n_digits < 1 || n_codes < 1 || skew < 0 ||
        PySequence_Size(size_list) != cs.n_cols ||
        (((Py_ssize_t)(n_codes - 1) >> shift) + 1) != n_digits) {
        PyErr_SetString(PyExc_ValueError, "move_low: inconsistent arguments");
        goto done;
    }
    const int64_t *bounds = bb.buf, *starts = sb.buf;
    /* n rows, laid out over n + n_digits * skew items */
    Py_ssize_t n = bounds[n_digits];
    Py_ssize_t span = n < 0 || skew > (PY_SSIZE_T_MAX - n) / n_digits ? -1 : n + n_digits * skew;
    int low_size = (int)(lb.len / (span > 0 ? span : 1));
    int bad = n < 0 || span < 0 || bounds[0] != 0 || lb.len != span * low_size ||
              lb.itemsize != low_size || (low_size != 1 && low_size != 2 && low_size != 4);
    for (Py_ssize_t h = 0; h < n_digits && !bad; h++) bad = bounds[h + 1] < bounds[h];
    for (Py_ssize_t c = 0; c < cs.n_cols && !bad; c++) {
        PyObject *item = PySequence_GetItem(size_list, c);
        if (!item) goto done;
        sizes[c] = PyLong_AsSsize_t(item);
        Py_DECREF(item);
        if (sizes[c] == -1 && PyErr_Occurred()) goto done;
        bad = (sizes[c] != 1 && sizes[c] != 2 && sizes[c] != 4 && sizes[c] != 8) ||
              cs.out[c].len != span * sizes[c];
    }
    if (!bad && check_columns(&cs, sizes, 0, "move_low")) goto done;
    int pair = cs.n_cols >= 2 && !bad && is_pair(cs.n_cols, sizes, sizes[0] == 1);
    /* scratch per row: scores and relevance of a pair; a place and the
     * item of one column for the others */
    Py_ssize_t per_row = pair ? 8 + sizes[0] : 12;
    if (cs.n_cols > (pair ? 2 : 0) && per_row < 12) per_row = 12;
    for (Py_ssize_t h = 0; h < n_digits && !bad; h++)
        bad = bounds[h + 1] - bounds[h] > xb.len / per_row ||
              bounds[h + 1] - bounds[h] > UINT32_MAX;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "move_low: inconsistent buffers");
        goto done;
    }
    Py_ssize_t width = (Py_ssize_t)1 << shift;
    lnext = PyMem_RawMalloc((size_t)width * sizeof(int64_t));
    if (!lnext) {
        PyErr_NoMemory();
        goto done;
    }
    const void *low_buf = lb.buf;
    int over = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t h = 0; h < n_digits; h++) {
        /* the digit's rows are read at a .. z - 1 and written at its place,
         * h * skew items before */
        int64_t at = bounds[h], a = at + h * skew, z = bounds[h + 1] + h * skew;
        Py_ssize_t m = z - a;
        Py_ssize_t c0 = h << shift;
        Py_ssize_t count = n_codes - c0 < width ? n_codes - c0 : width;
        if (m < 1) continue;
        if (count < 2 || m < 2) { /* one code: the rows only shift */
            for (Py_ssize_t c = 0; c < cs.n_cols; c++) {
                char *o = cs.out[c].buf;
                memmove(o + at * sizes[c], o + a * sizes[c], (size_t)m * (size_t)sizes[c]);
            }
            continue;
        }
        for (Py_ssize_t d = 0; d < count; d++) lnext[d] = starts[c0 + d] - at;
        Py_ssize_t c = 0;
        if (pair) {
            /* both columns in one loop, through scratch: scores, then
             * relevance after them */
            uint64_t *s_tmp = xb.buf, *s_out = (uint64_t *)cs.out[1].buf;
            void *y_tmp = s_tmp + m;
            const void *y_out = cs.out[0].buf;
            if (sizes[0] == 1) {
                switch (low_size) {
                case 1: LOW_PAIR(uint8_t, uint8_t) break;
                case 2: LOW_PAIR(uint16_t, uint8_t) break;
                default: LOW_PAIR(uint32_t, uint8_t) break;
                }
            } else {
                switch (low_size) {
                case 1: LOW_PAIR(uint8_t, uint64_t) break;
                case 2: LOW_PAIR(uint16_t, uint64_t) break;
                default: LOW_PAIR(uint32_t, uint64_t) break;
                }
            }
            if (over) break;
            memcpy(s_out + at, s_tmp, (size_t)m * 8);
            memcpy((char *)cs.out[0].buf + at * sizes[0], y_tmp, (size_t)m * (size_t)sizes[0]);
            c = 2;
            if (c >= cs.n_cols) continue;
            for (Py_ssize_t d = 0; d < count; d++) lnext[d] = starts[c0 + d] - at;
        }
        /* any other column: the places first, then each column */
        uint32_t *pos = (uint32_t *)((uint64_t *)xb.buf + m);
        switch (low_size) {
        case 1: LOW_POSITIONS(uint8_t) break;
        case 2: LOW_POSITIONS(uint16_t) break;
        default: LOW_POSITIONS(uint32_t) break;
        }
        if (over) break;
        for (; c < cs.n_cols; c++) {
            char *o = (char *)cs.out[c].buf + a * sizes[c];
            void *tmp = xb.buf;
            switch (sizes[c]) {
            case 1: LOW_COLUMN(uint8_t) break;
            case 2: LOW_COLUMN(uint16_t) break;
            case 4: LOW_COLUMN(uint32_t) break;
            default: LOW_COLUMN(uint64_t) break;
            }
            memcpy((char *)cs.out[c].buf + at * sizes[c], tmp, (size_t)m * (size_t)sizes[c]);
        }
    }
    Py_END_ALLOW_THREADS
    if (over) {
        PyErr_SetString(PyExc_ValueError, "move_low: a digit or a code start is out of range");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_RawFree(lnext);
    release_columns(&cs);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&lb);
    PyBuffer_Release(&xb);
    return result;
}
#undef OFF

/* ------------------------------------------------------------------------ */
/* Tie groups of ranked rows.                                                */
/* ------------------------------------------------------------------------ */

PyDoc_STRVAR(count_groups_doc,
"count_groups(s, m, w) -> int\n\n"
"The number of tie groups of the C-contiguous (m, w) float64 scores s,\n"
"each row in rank order: runs of equal scores within a row.");

static PyObject *count_groups(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer sb = {0};
    Py_ssize_t m, w;
    if (!PyArg_ParseTuple(args, "O&nn", buf_in, &sb, &m, &w)) return NULL;
    if (check_buf(&sb, 'f', 8, "count_groups", "s")) {
        PyBuffer_Release(&sb);
        return NULL;
    }
    if (m < 0 || w < 1 || sb.len != m * w * (Py_ssize_t)sizeof(double)) {
        PyBuffer_Release(&sb);
        PyErr_SetString(PyExc_ValueError, "count_groups: inconsistent buffer");
        return NULL;
    }
    const double *s = sb.buf;
    Py_ssize_t groups = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m; r++) {
        const double *row = s + r * w;
        Py_ssize_t g = 1;
        for (Py_ssize_t j = 1; j < w; j++) g += row[j] != row[j - 1];
        groups += g;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&sb);
    return PyLong_FromSsize_t(groups);
}

PyDoc_STRVAR(fill_groups_doc,
"fill_groups(s, m, w, size, start, row_first, last)\n\n"
"The tie groups of the (m, w) float64 scores s (see count_groups), G of\n"
"them, numbered row by row, written into int64 buffers: size (G entries)\n"
"each group's number of items; start (G + 1 entries, the last one\n"
"scratch) the rank of each group's first item in its row; row_first (m\n"
"entries) the number of each row's first group; and last (m * w bytes)\n"
"whether each position is the last of its group.");

static PyObject *fill_groups(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer sb = {0}, zb = {0}, tb = {0}, fb = {0}, lb = {0};
    Py_ssize_t m, w;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&nnO&O&O&O&", buf_in, &sb, &m, &w, buf_out, &zb, buf_out, &tb,
        buf_out, &fb, buf_out, &lb))
        return NULL;
    if (check_buf(&sb, 'f', 8, "fill_groups", "s") ||
        check_buf(&zb, 'i', 8, "fill_groups", "size") ||
        check_buf(&tb, 'i', 8, "fill_groups", "start") ||
        check_buf(&fb, 'i', 8, "fill_groups", "row_first") ||
        check_buf(&lb, 'u', 1, "fill_groups", "last"))
        goto done;
    Py_ssize_t n = m * w;
    Py_ssize_t cell = (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t G = zb.len / cell;
    if (m < 0 || w < 1 || sb.len != n * (Py_ssize_t)sizeof(double) || zb.len != G * cell ||
        tb.len != (G + 1) * cell || fb.len != m * cell || lb.len != n) {
        PyErr_SetString(PyExc_ValueError, "fill_groups: inconsistent buffers");
        goto done;
    }
    const double *s = sb.buf;
    int64_t *size = zb.buf, *start = tb.buf, *row_first = fb.buf;
    uint8_t *last = lb.buf;
    Py_ssize_t found = 0;
    Py_BEGIN_ALLOW_THREADS
    /* each position writes its rank as its group's start, kept only where
     * a group begins (the next one overwrites it otherwise): no branch per
     * item */
    for (Py_ssize_t r = 0; r < m && found <= G; r++) {
        const double *x = s + r * w;
        row_first[r] = found;
        start[found] = 0;
        found++;
        for (Py_ssize_t j = 1; j < w && found <= G; j++) {
            start[found] = j;
            int begins = x[j] != x[j - 1];
            last[r * w + j - 1] = (uint8_t)begins;
            found += begins;
        }
        last[r * w + w - 1] = 1;
    }
    if (found == G) {
        /* a group ends where the next group of its row starts, or at w */
        for (Py_ssize_t r = 0; r < m; r++) {
            int64_t end = r + 1 < m ? row_first[r + 1] : G;
            for (int64_t g = row_first[r]; g < end; g++)
                size[g] = (g + 1 < end ? start[g + 1] : w) - start[g];
        }
    }
    Py_END_ALLOW_THREADS
    if (found != G) {
        PyErr_SetString(PyExc_ValueError, "fill_groups: the group count differs");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&sb);
    PyBuffer_Release(&zb);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&lb);
    return result;
}

PyDoc_STRVAR(segment_sums_doc,
"segment_sums(x, kind, last, out)\n\n"
"Sums of x over runs of positions: out[g] = the sum of the g-th run,\n"
"added in position order to 0.0, where last (one byte per position)\n"
"marks the last position of each run and len(out) is the number of runs.\n"
"x holds float64 (kind 8) or one-byte booleans (kind 1).");

static PyObject *segment_sums(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer xb = {0}, lb = {0}, ob = {0};
    int kind;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&iO&O&", buf_in, &xb, &kind, buf_in, &lb,
        buf_out, &ob)) return NULL;
    if (check_buf(&xb, kind == 1 ? 'b' : 'f', kind == 1 ? 1 : 8, "segment_sums", "x") ||
        check_buf(&lb, 'u', 1, "segment_sums", "last") ||
        check_buf(&ob, 'f', 8, "segment_sums", "out"))
        goto done;
    Py_ssize_t G = ob.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t n = lb.len;
    const uint8_t *last = lb.buf;
    Py_ssize_t runs = 0;
    if ((kind == 8 || kind == 1) && xb.len == n * kind) {
        for (Py_ssize_t i = 0; i < n; i++) runs += last[i] != 0;
    }
    if ((kind != 8 && kind != 1) || xb.len != n * kind || runs != G ||
        (n > 0 && !last[n - 1])) {
        PyErr_SetString(PyExc_ValueError, "segment_sums: inconsistent buffers");
        goto done;
    }
    double *out = ob.buf;
    Py_BEGIN_ALLOW_THREADS
    /* no branch per position: each position adds to its run's sum, and a
     * run's last position moves on to the next run */
    memset(out, 0, (size_t)G * sizeof(double));
    Py_ssize_t g = 0;
    if (kind == 8) {
        const double *x = xb.buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            out[g] += x[i];
            g += last[i] != 0;
        }
    } else {
        /* counts: a running integer count, each run's sum the difference at
         * its last position (exact, so equal to adding in order) */
        const uint8_t *x = xb.buf;
        int64_t count = 0, before = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            count += x[i] != 0;
            out[g] = (double)(count - before);
            int end = last[i] != 0;
            before = end ? count : before;
            g += end;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&xb);
    PyBuffer_Release(&lb);
    PyBuffer_Release(&ob);
    return result;
}

PyDoc_STRVAR(row_before_doc,
"row_before(values, row_first, out)\n\n"
"For float64 per-group values, groups numbered row by row with row_first\n"
"(int64, ascending, starting at 0) the number of each row's first group:\n"
"out[g] = the sum of values over the earlier groups of g's row, added in\n"
"group order from 0.0.");

static PyObject *row_before(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer vb = {0}, fb = {0}, ob = {0};
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&O&O&", buf_in, &vb, buf_in, &fb, buf_out, &ob)) return NULL;
    if (check_buf(&vb, 'f', 8, "row_before", "values") ||
        check_buf(&fb, 'i', 8, "row_before", "row_first") ||
        check_buf(&ob, 'f', 8, "row_before", "out"))
        goto done;
    Py_ssize_t G = vb.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t m = fb.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *row_first = fb.buf;
    int ok = ob.len == vb.len && (m == 0 || row_first[0] == 0);
    for (Py_ssize_t r = 1; ok && r < m; r++)
        ok = row_first[r] >= row_first[r - 1] && row_first[r] <= G;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "row_before: inconsistent buffers");
        goto done;
    }
    const double *v = vb.buf;
    double *out = ob.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t end = r + 1 < m ? row_first[r + 1] : G;
        double acc = 0.0;
        for (int64_t g = row_first[r]; g < end; g++) {
            out[g] = acc;
            acc += v[g];
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&vb);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&ob);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Average precision                                                         */
/* ------------------------------------------------------------------------ */

/* The average-precision term of a one-item group at 0-based rank T with x
 * relevant items (0 or 1) and R_before relevant items before it. */
static inline double single_term(double x, double before, int64_t T)
{
    return x * (before + 1.0) / ((double)T + 1.0);
}

/* The average-precision term of a tie group (see ap_terms): a one-item
 * group's term divides as numpy does, a tied group's multiplies by inv,
 * the reciprocals 1/t (inv[0] = 0). One-item and tied groups alternate at
 * random in real rankings, so both terms are computed and one is chosen
 * by a mask, without a branch. */
static inline double ap_term(double x, double before, int64_t T, int64_t t, int64_t n,
                             const double *H, const double *inv, int cut)
{
    double single = single_term(x, before, T);
    if (cut && n <= 0) single = 0.0;
    double d = (x - 1.0) * inv[t - 1];
    double c = before + 1.0 - ((double)T + 1.0) * d;
    double tied = x * inv[t] * (c * (H[T + n] - H[T]) + d * (double)n);
    uint64_t a, b, mask = (uint64_t)0 - (uint64_t)(t > 1);
    memcpy(&a, &tied, sizeof a);
    memcpy(&b, &single, sizeof b);
    a = (a & mask) | (b & ~mask);
    double term;
    memcpy(&term, &a, sizeof term);
    return term;
}

/* 1/t for t = 0 .. n (0 for t = 0), from PyMem_RawMalloc; NULL when
 * memory runs out. Needs no GIL. */
static double *reciprocals(Py_ssize_t n)
{
    double *inv = PyMem_RawMalloc((size_t)(n + 1) * sizeof(double));
    if (!inv) return NULL;
    inv[0] = 0.0;
    for (Py_ssize_t t = 1; t <= n; t++) inv[t] = 1.0 / (double)t;
    return inv;
}

PyDoc_STRVAR(ap_terms_doc,
"ap_terms(rel, before, start, size, inside, harmonic, cut, out)\n\n"
"The tie-aware average-precision terms of G tie groups (skrank._measures\n"
"._ap_terms, McSherry & Najork): for a group of t items, r of them\n"
"relevant, R_before relevant items in the earlier groups of its row, first\n"
"rank T (0-based) and n positions inside the cutoff, with d = (r-1)/(t-1)\n"
"and c = R_before + 1 - (T+1) d, the term (r/t) (c (H[T+n] - H[T]) + d n);\n"
"a one-item group adds r (R_before + 1) / (T + 1), or 0 when cut is true\n"
"and it is outside the cutoff. A tied group's term multiplies by 1/t and\n"
"1/(t-1) where the formula divides (equal to rounding). rel, before,\n"
"harmonic and out are float64 buffers, start, size and inside int64.");

static PyObject *ap_terms(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer rb = {0}, bb = {0}, tb = {0}, zb = {0}, ib = {0}, hb = {0}, ob = {0};
    int cut;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&O&pO&", buf_in, &rb, buf_in, &bb, buf_in, &tb,
        buf_in, &zb, buf_in, &ib, buf_in, &hb, &cut, buf_out, &ob))
        return NULL;
    if (check_buf(&rb, 'f', 8, "ap_terms", "rel") ||
        check_buf(&bb, 'f', 8, "ap_terms", "before") ||
        check_buf(&tb, 'i', 8, "ap_terms", "start") ||
        check_buf(&zb, 'i', 8, "ap_terms", "size") ||
        check_buf(&ib, 'i', 8, "ap_terms", "inside") ||
        check_buf(&hb, 'f', 8, "ap_terms", "harmonic") ||
        check_buf(&ob, 'f', 8, "ap_terms", "out"))
        goto done;
    Py_ssize_t G = rb.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t nh = hb.len / (Py_ssize_t)sizeof(double);
    const double *rel = rb.buf, *before = bb.buf, *H = hb.buf;
    const int64_t *start = tb.buf, *size = zb.buf, *inside = ib.buf;
    int ok = bb.len == rb.len && tb.len == rb.len && zb.len == rb.len &&
             ib.len == rb.len && ob.len == rb.len;
    for (Py_ssize_t g = 0; ok && g < G; g++)
        ok = start[g] >= 0 && inside[g] >= 0 && inside[g] <= size[g] &&
             start[g] + inside[g] < nh && size[g] >= 1 && size[g] <= nh;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "ap_terms: inconsistent buffers");
        goto done;
    }
    double *out = ob.buf;
    double *inv = reciprocals(nh);
    if (!inv) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t g = 0; g < G; g++)
        out[g] = ap_term(rel[g], before[g], start[g], size[g], inside[g], H, inv, cut);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(inv);
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&rb);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&zb);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&ob);
    return result;
}

PyDoc_STRVAR(ap_sums_doc,
"ap_sums(rel, start, size, inside, row_first, harmonic, cut, w, k, out)\n\n"
"Per row, the sum of the average-precision terms of ap_terms over its\n"
"groups, in group order, each group's R_before the relevant items of the\n"
"earlier groups of its row added in group order from 0.0: the row sums\n"
"of ap_terms(rel, row_before(rel), ...) in one pass. With w = 0, rel,\n"
"start, size and inside hold one entry per tie group (groups numbered row\n"
"by row, row_first the number of each row's first group). With w > 0 the\n"
"ranking has no ties: rel is its (m, w) matrix, every position a group of\n"
"one item, and the positions before rank k count (all when k < 0); start,\n"
"size and inside are not read. rel, harmonic and out are float64, the rest\n"
"int64.");

static PyObject *ap_sums(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer rb = {0}, tb = {0}, zb = {0}, ib = {0}, fb = {0}, hb = {0}, ob = {0};
    int cut;
    Py_ssize_t w, k;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&O&pnnO&", buf_in, &rb, buf_in, &tb, buf_in, &zb,
        buf_in, &ib, buf_in, &fb, buf_in, &hb, &cut, &w, &k, buf_out, &ob))
        return NULL;
    if (check_buf(&rb, 'f', 8, "ap_sums", "rel") ||
        check_buf(&tb, 'i', 8, "ap_sums", "start") ||
        check_buf(&zb, 'i', 8, "ap_sums", "size") ||
        check_buf(&ib, 'i', 8, "ap_sums", "inside") ||
        check_buf(&fb, 'i', 8, "ap_sums", "row_first") ||
        check_buf(&hb, 'f', 8, "ap_sums", "harmonic") ||
        check_buf(&ob, 'f', 8, "ap_sums", "out"))
        goto done;
    Py_ssize_t m = ob.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t nh = hb.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t G = rb.len / (Py_ssize_t)sizeof(double);
    const double *rel = rb.buf, *H = hb.buf;
    const int64_t *start = tb.buf, *size = zb.buf, *inside = ib.buf, *row_first = fb.buf;
    double *out = ob.buf;
    int ok = w >= 0;
    if (ok && w == 0) {
        ok = tb.len == rb.len && zb.len == rb.len && ib.len == rb.len &&
             fb.len == m * (Py_ssize_t)sizeof(int64_t);
        for (Py_ssize_t r = 0; ok && r < m; r++)
            ok = row_first[r] >= 0 && row_first[r] <= G &&
                 (r == 0 || row_first[r] >= row_first[r - 1]);
    } else if (ok) {
        ok = G == m * w;
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "ap_sums: inconsistent buffers");
        goto done;
    }
    int bad = 0;
    double *inv = w == 0 ? reciprocals(nh) : NULL;
    if (w == 0 && !inv) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    if (w == 0) {
        for (Py_ssize_t r = 0; r < m && !bad; r++) {
            int64_t end = r + 1 < m ? row_first[r + 1] : G;
            double before = 0.0, acc = 0.0;
            for (int64_t g = row_first[r]; g < end; g++) {
                double x = rel[g];
                int64_t T = start[g], t = size[g], n = inside[g];
                /* the groups are checked as they are read */
                if (T < 0 || n < 0 || n > t || T + n >= nh || t < 1 || t > nh) {
                    bad = 1;
                    break;
                }
                acc += ap_term(x, before, T, t, n, H, inv, cut);
                before += x;
            }
            out[r] = acc;
        }
    } else {
        Py_ssize_t depth = k < 0 || k > w ? w : k;
        for (Py_ssize_t r = 0; r < m; r++) {
            const double *x = rel + r * w;
            double before = 0.0, acc = 0.0;
            for (Py_ssize_t j = 0; j < depth; j++) {
                acc += single_term(x[j], before, j);
                before += x[j];
            }
            out[r] = acc;
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(inv);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "ap_sums: inconsistent buffers");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&rb);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&zb);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&ob);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Grade counts of the ideal DCG                                             */
/* ------------------------------------------------------------------------ */

#define MAX_GRADE 6

PyDoc_STRVAR(grade_counts_doc,
"grade_counts(y, m, n, out) -> int\n\n"
"For the C-contiguous (m, n) float64 relevance y: when every value is an\n"
"integer in 0 .. 6, writes the number of values >= g of each row for\n"
"g = 1 .. 6 into out, an (m, 6) int64 buffer, and returns the largest\n"
"value; returns -1 (out undefined) when some value is not such an\n"
"integer.");

static PyObject *grade_counts(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer yb = {0}, ob = {0};
    Py_ssize_t m, n;
    if (!PyArg_ParseTuple(args, "O&nnO&", buf_in, &yb, &m, &n, buf_out, &ob)) return NULL;
    PyObject *result = NULL;
    if (check_buf(&yb, 'f', 8, "grade_counts", "y") ||
        check_buf(&ob, 'i', 8, "grade_counts", "out"))
        goto done;
    if (m < 0 || n < 0 || yb.len != m * n * (Py_ssize_t)sizeof(double) ||
        ob.len != m * MAX_GRADE * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "grade_counts: inconsistent buffers");
        goto done;
    }
    const double *y = yb.buf;
    int64_t *out = ob.buf;
    int bad = 0, top = 0;
    /* A value's grade g adds ONE[g]: one byte counter per grade in a 64-bit
     * word, emptied before any byte can overflow. Grade 7 stands for every
     * value that is not an integer in 0 .. MAX_GRADE. */
    static const uint64_t ONE[8] = {1ULL,       1ULL << 8,  1ULL << 16, 1ULL << 24,
                                    1ULL << 32, 1ULL << 40, 1ULL << 48, 1ULL << 56};
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m && !bad; r++) {
        const double *row = y + r * n;
        int64_t h[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (Py_ssize_t j = 0; j < n;) {
            /* two words, each taking at most 255 values of this block */
            Py_ssize_t end = n - j > 510 ? j + 510 : n;
            uint64_t acc0 = 0, acc1 = 0;
            for (; j < end; j++) {
                double v = row[j];
                int g = small_integer(v, MAX_GRADE);
                uint64_t add = ONE[g < 0 ? 7 : g];
                if (j & 1)
                    acc1 += add;
                else
                    acc0 += add;
            }
            for (int g = 0; g < 8; g++) h[g] += (int64_t)((acc0 >> (8 * g)) & 255) +
                                                (int64_t)((acc1 >> (8 * g)) & 255);
        }
        bad = h[7] != 0;
        int64_t *o = out + r * MAX_GRADE;
        int64_t above = 0;
        for (int g = MAX_GRADE; g >= 1; g--) {
            above += h[g];
            o[g - 1] = above;
            if (h[g] && g > top) top = g;
        }
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromLong(bad ? -1 : top);
done:
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Sums over the groups that start before a cutoff                          */
/* ------------------------------------------------------------------------ */

PyDoc_STRVAR(head_sums_doc,
"head_sums(a, start, size, row_first, k, table, mode, w, out)\n\n"
"Per row, the sum over its tie groups that start before rank k of a\n"
"group's value a times its part of a per-rank weight: with T the group's\n"
"first rank, t its size and n = min(k - T, t) its positions inside the\n"
"cutoff, mode 0 adds (a / t) * (table[T + n] - table[T]) (table: the\n"
"cumulative weights, float64) and mode 1 adds (a * n) / t, in group order\n"
"from 0.0. a is float64: one value per group when w is 0, else one per\n"
"position of the (m, w) ranking, a group's value then being the sum of\n"
"its positions' values in rank order from 0.0. start, size and row_first\n"
"are int64 (groups numbered row by row, row_first the number of each\n"
"row's first group), out has one float64 per row.");

static PyObject *head_sums(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer ab = {0}, tb = {0}, zb = {0}, fb = {0}, wb = {0}, ob = {0};
    Py_ssize_t k, w;
    int mode;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&O&O&O&nO&inO&", buf_in, &ab, buf_in, &tb, buf_in, &zb,
        buf_in, &fb, &k, buf_in, &wb, &mode, &w, buf_out, &ob))
        return NULL;
    if (check_buf(&ab, 'f', 8, "head_sums", "a") ||
        check_buf(&tb, 'i', 8, "head_sums", "start") ||
        check_buf(&zb, 'i', 8, "head_sums", "size") ||
        check_buf(&fb, 'i', 8, "head_sums", "row_first") ||
        check_buf(&wb, 'f', 8, "head_sums", "table") ||
        check_buf(&ob, 'f', 8, "head_sums", "out"))
        goto done;
    Py_ssize_t G = tb.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t m = fb.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t nw = wb.len / (Py_ssize_t)sizeof(double);
    const int64_t *start = tb.buf, *size = zb.buf, *row_first = fb.buf;
    int ok = (mode == 0 || mode == 1) && k >= 0 && w >= 0 && zb.len == tb.len &&
             ob.len == m * (Py_ssize_t)sizeof(double) && (mode == 1 || nw > k) &&
             ab.len == (w ? m * w : G) * (Py_ssize_t)sizeof(double);
    for (Py_ssize_t r = 0; ok && r < m; r++)
        ok = row_first[r] >= 0 && row_first[r] <= G && (r == 0 || row_first[r] >= row_first[r - 1]);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "head_sums: inconsistent buffers");
        goto done;
    }
    const double *a = ab.buf, *table = wb.buf;
    double *out = ob.buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m && !bad; r++) {
        int64_t end = r + 1 < m ? row_first[r + 1] : G;
        double acc = 0.0;
        for (int64_t g = row_first[r]; g < end && start[g] < k; g++) {
            int64_t T = start[g], t = size[g];
            /* only the groups read are checked: a group inside its row */
            if (T < 0 || t < 1 || (w && T + t > w)) {
                bad = 1;
                break;
            }
            int64_t n = k - T < t ? k - T : t;
            double v;
            if (w) {
                const double *x = a + r * w + T;
                v = 0.0;
                for (int64_t j = 0; j < t; j++) v += x[j];
            } else {
                v = a[g];
            }
            if (mode == 0)
                acc += v / (double)t * (table[T + n] - table[T]);
            else
                acc += v * (double)n / (double)t;
        }
        out[r] = acc;
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "head_sums: inconsistent buffers");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&ab);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&zb);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&wb);
    PyBuffer_Release(&ob);
    return result;
}

/* ------------------------------------------------------------------------ */
/* The first group holding a relevant item                                   */
/* ------------------------------------------------------------------------ */

PyDoc_STRVAR(first_hits_doc,
"first_hits(rel, start, row_first, k, out)\n\n"
"Per row, the number of its first tie group with rel > 0 among the\n"
"groups that start before rank k (all groups when k < 0), or -1; rel is\n"
"float64 per group, start and row_first int64 (groups numbered row by\n"
"row), out int64 per row.");

static PyObject *first_hits(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer rb = {0}, tb = {0}, fb = {0}, ob = {0};
    Py_ssize_t k;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&O&O&nO&", buf_in, &rb, buf_in, &tb, buf_in, &fb, &k,
        buf_out, &ob)) return NULL;
    if (check_buf(&rb, 'f', 8, "first_hits", "rel") ||
        check_buf(&tb, 'i', 8, "first_hits", "start") ||
        check_buf(&fb, 'i', 8, "first_hits", "row_first") ||
        check_buf(&ob, 'i', 8, "first_hits", "out"))
        goto done;
    Py_ssize_t G = rb.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t m = fb.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *row_first = fb.buf;
    int ok = tb.len == G * (Py_ssize_t)sizeof(int64_t) && ob.len == fb.len;
    for (Py_ssize_t r = 0; ok && r < m; r++)
        ok = row_first[r] >= 0 && row_first[r] <= G && (r == 0 || row_first[r] >= row_first[r - 1]);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "first_hits: inconsistent buffers");
        goto done;
    }
    const double *rel = rb.buf;
    const int64_t *start = tb.buf;
    int64_t *out = ob.buf;
    int64_t limit = k < 0 ? INT64_MAX : (int64_t)k;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t end = r + 1 < m ? row_first[r + 1] : G;
        int64_t found = -1;
        for (int64_t g = row_first[r]; g < end && start[g] < limit; g++)
            if (rel[g] > 0) {
                found = g;
                break;
            }
        out[r] = found;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&rb);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&ob);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Whole rows sorted as integer keys: score bits and column in one word      */
/* ------------------------------------------------------------------------ */

/* The float64 x as an unsigned integer in the same order (sign bit flipped
 * for x >= 0, every bit for x < 0). */
static inline uint64_t ordered_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    /* without a branch: all bits flipped when the sign bit is set */
    uint64_t negative = (uint64_t)0 - (b >> 63);
    return b ^ (negative | ((uint64_t)1 << 63));
}

PyDoc_STRVAR(score_keys_doc,
"score_keys(s, m, L, bits, backwards, keys)\n\n"
"For the (m, L) float64 scores s (L <= 2**bits): keys[i, j] = the bits of\n"
"s[i, j] (-0.0 read as 0.0) as an unsigned integer in the order of the\n"
"scores, its lowest `bits` bits replaced by the column j (backwards:\n"
"L - 1 - j). Sorting a row of keys sorts its scores, equal scores by\n"
"column, up to different scores that agree but for those low bits, whose\n"
"keys then go by column too (see descending_keys).");

static PyObject *score_keys(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer sb = {0}, kb = {0};
    Py_ssize_t m, L;
    int bits, backwards;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&nnipO&", buf_in, &sb, &m, &L, &bits, &backwards,
        buf_out, &kb)) return NULL;
    if (check_buf(&sb, 'f', 8, "score_keys", "s") ||
        check_buf(&kb, 'u', 8, "score_keys", "keys"))
        goto done;
    if (m < 0 || L < 0 || bits < 1 || bits > 32 || L > ((Py_ssize_t)1 << bits) ||
        sb.len != m * L * (Py_ssize_t)sizeof(double) || kb.len != sb.len) {
        PyErr_SetString(PyExc_ValueError, "score_keys: inconsistent buffers");
        goto done;
    }
    const double *s = sb.buf;
    uint64_t *keys = kb.buf;
    uint64_t high = ~(((uint64_t)1 << bits) - 1);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m; r++)
        for (Py_ssize_t j = 0; j < L; j++) {
            /* x + 0.0 is 0.0 for -0.0: the two zeros get one key */
            uint64_t column = (uint64_t)(backwards ? L - 1 - j : j);
            keys[r * L + j] = (ordered_bits(s[r * L + j] + 0.0) & high) | column;
        }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&sb);
    PyBuffer_Release(&kb);
    return result;
}

PyDoc_STRVAR(descending_keys_doc,
"descending_keys(keys, m, L, bits, backwards, y, s, y_out, s_out, pos,\n"
"                exact) -> int\n\n"
"keys: the (m, L) keys of score_keys, each row sorted ascending. Reads\n"
"each row backwards: y_out and s_out receive the relevance y and scores s\n"
"of its columns (the key's low bits, or L - 1 minus them with backwards)\n"
"in descending order of score, and pos\n"
"(an int64 (m, L) buffer, or None) their flat positions row * L + column.\n"
"exact (one byte per row) is set to 0 for a row where two adjacent keys\n"
"agree above the low bits while their scores differ (the keys did not\n"
"order them), else 1. Returns the number of such rows.");

static PyObject *descending_keys(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer kb = {0}, yb = {0}, sb = {0}, yob = {0}, sob = {0}, pb = {0}, eb = {0};
    Py_ssize_t m, L;
    int bits, backwards;
    PyObject *pos_obj;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&nnipO&O&O&O&OO&", buf_in, &kb, &m, &L, &bits, &backwards,
        buf_in, &yb, buf_in, &sb, buf_out, &yob, buf_out, &sob, &pos_obj, buf_out, &eb))
        return NULL;
    if (pos_obj != Py_None && !buf_out(pos_obj, &pb)) goto done;
    if (check_buf(&kb, 'u', 8, "descending_keys", "keys") ||
        check_buf(&yb, 'f', 8, "descending_keys", "y") ||
        check_buf(&sb, 'f', 8, "descending_keys", "s") ||
        check_buf(&yob, 'f', 8, "descending_keys", "y_sorted") ||
        check_buf(&sob, 'f', 8, "descending_keys", "s_sorted") ||
        check_buf(&pb, 'i', 8, "descending_keys", "pos") ||
        check_buf(&eb, 'u', 1, "descending_keys", "exact"))
        goto done;
    Py_ssize_t cells = m * L;
    if (m < 0 || L < 0 || bits < 1 || bits > 32 || L > ((Py_ssize_t)1 << bits) ||
        kb.len != cells * (Py_ssize_t)sizeof(uint64_t) ||
        yb.len != cells * (Py_ssize_t)sizeof(double) || sb.len != yb.len ||
        yob.len != yb.len || sob.len != yb.len || eb.len != m ||
        (pb.obj && pb.len != cells * (Py_ssize_t)sizeof(int64_t))) {
        PyErr_SetString(PyExc_ValueError, "descending_keys: inconsistent buffers");
        goto done;
    }
    const uint64_t *keys = kb.buf;
    const double *y = yb.buf, *s = sb.buf;
    double *yo = yob.buf, *so = sob.buf;
    int64_t *pos = pb.obj ? pb.buf : NULL;
    uint8_t *exact = eb.buf;
    uint64_t low = ((uint64_t)1 << bits) - 1;
    Py_ssize_t inexact = 0;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m; r++) {
        const uint64_t *k = keys + r * L;
        const int64_t base = (int64_t)(r * L);
        const double *yr = y + base, *sr = s + base;
        double *yor = yo + base, *sor = so + base;
        /* the gathers: a column out of range is flagged, and read as 0 */
        int64_t wrong = 0;
        for (Py_ssize_t j = 0; j < L; j++) {
            uint64_t c = k[L - 1 - j] & low;
            if (backwards) c = (uint64_t)L - 1 - c;
            int out_of_range = c >= (uint64_t)L;
            wrong |= out_of_range;
            c = out_of_range ? 0 : c;
            yor[j] = yr[c];
            sor[j] = sr[c];
        }
        if (wrong) {
            bad = 1;
            break;
        }
        if (pos)
            for (Py_ssize_t j = 0; j < L; j++) {
                uint64_t c = k[L - 1 - j] & low;
                if (backwards) c = (uint64_t)L - 1 - c;
                pos[base + j] = base + (int64_t)c;
            }
        /* neighbours whose keys agree above the low bits but whose scores
         * differ: the keys did not order them */
        int64_t same_high_differ = 0;
        for (Py_ssize_t j = 1; j < L; j++)
            same_high_differ |= ((k[L - 1 - j] & ~low) == (k[L - j] & ~low)) &
                                (sor[j] != sor[j - 1]);
        exact[r] = (uint8_t)!same_high_differ;
        inexact += same_high_differ != 0;
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "descending_keys: a column out of range");
        goto done;
    }
    result = PyLong_FromSsize_t(inexact);
done:
    PyBuffer_Release(&kb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&yob);
    PyBuffer_Release(&sob);
    if (pb.obj) PyBuffer_Release(&pb);
    PyBuffer_Release(&eb);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Whole rows in descending order from an ascending sort                     */
/* ------------------------------------------------------------------------ */

PyDoc_STRVAR(descending_rows_doc,
"descending_rows(order, m, L, y, s, y_out, s_out, positions)\n\n"
"order: an (m, L) int64 buffer holding, per row, the columns of an\n"
"ascending sort of the scores s. y_out and s_out receive the relevance y\n"
"and scores s of the items in descending order (each row read\n"
"backwards), all float64 (m, L); with positions true, order is rewritten\n"
"in place as the flat positions (row * L + column) of those items, in the\n"
"same pass.");

static PyObject *descending_rows(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer ob = {0}, yb = {0}, sb = {0}, yob = {0}, sob = {0};
    Py_ssize_t m, L;
    int positions;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "O&nnO&O&O&O&p", buf_out, &ob, &m, &L, buf_in, &yb, buf_in, &sb,
        buf_out, &yob, buf_out, &sob, &positions))
        return NULL;
    if (check_buf(&ob, 'i', 8, "descending_rows", "order") ||
        check_buf(&yb, 'f', 8, "descending_rows", "y") ||
        check_buf(&sb, 'f', 8, "descending_rows", "s") ||
        check_buf(&yob, 'f', 8, "descending_rows", "y_sorted") ||
        check_buf(&sob, 'f', 8, "descending_rows", "s_sorted"))
        goto done;
    Py_ssize_t cells = m * L;
    if (m < 0 || L < 0 || ob.len != cells * (Py_ssize_t)sizeof(int64_t) ||
        yb.len != cells * (Py_ssize_t)sizeof(double) || sb.len != yb.len ||
        yob.len != yb.len || sob.len != yb.len) {
        PyErr_SetString(PyExc_ValueError, "descending_rows: inconsistent buffers");
        goto done;
    }
    int64_t *order = ob.buf;
    const double *y = yb.buf, *s = sb.buf;
    double *yo = yob.buf, *so = sob.buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m && !positions; r++) {
        /* the rows read backwards, order left as it is */
        const int64_t *o = order + r * L;
        const int64_t base = (int64_t)(r * L);
        for (Py_ssize_t j = 0; j < L; j++) {
            int64_t c = o[L - 1 - j];
            if ((uint64_t)c >= (uint64_t)L) {
                bad = 1;
                break;
            }
            yo[base + j] = y[base + c];
            so[base + j] = s[base + c];
        }
        if (bad) break;
    }
    for (Py_ssize_t r = 0; r < m && positions; r++) {
        int64_t *o = order + r * L;
        int64_t base = (int64_t)(r * L);
        Py_ssize_t j = 0, q = L - 1;
        for (; j < q; j++, q--) {
            int64_t a = o[j], b = o[q];
            bad |= (uint64_t)a >= (uint64_t)L || (uint64_t)b >= (uint64_t)L;
            o[j] = base + b;
            o[q] = base + a;
        }
        if (j == q) {
            bad |= (uint64_t)o[j] >= (uint64_t)L;
            o[j] += base;
        }
        if (bad) break;
        for (j = 0; j < L; j++) {
            int64_t at = o[j];
            yo[base + j] = y[at];
            so[base + j] = s[at];
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "descending_rows: a column out of range");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&ob);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&yob);
    PyBuffer_Release(&sob);
    return result;
}

PyDoc_STRVAR(place_digits_doc,
"place_digits(starts, shift, bounds, skew, first, stop, low, y_in, s_in,\n"
"             y_out, s_out)\n\n"
"The second phase of the grouping for the high digits first .. stop - 1,\n"
"into arrays of their own: digit h's rows, at bounds[h] + h * skew ..\n"
"bounds[h + 1] + h * skew - 1 of y_in (uint8 or float64), s_in (8-byte\n"
"items) and low (their low digits: uint8, uint16 or uint32), go to y_out\n"
"(float64) and s_out (bounds[stop] - bounds[first] items each), each to the\n"
"place of its code: code (h << shift) + d - (first << shift) starts at\n"
"starts[that code] (int64, 0-based in the outputs); rows keep their order\n"
"within a code. y_in may instead hold tags (uint16 or uint32, low None),\n"
"as move_high writes them: the grade in the lowest byte, the low digit d\n"
"above it.");

static PyObject *place_digits(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer sb = {0}, bb = {0}, lb = {0}, yb = {0}, xb = {0}, yo = {0}, so = {0};
    int shift;
    Py_ssize_t skew, first, stop;
    PyObject *result = NULL, *low_obj;
    int64_t *lnext = NULL;
    if (!PyArg_ParseTuple(args, "O&iO&nnnOO&O&O&O&", buf_in, &sb, &shift, buf_in, &bb, &skew,
        &first, &stop, &low_obj, buf_in, &yb, buf_in, &xb, buf_out, &yo, buf_out, &so))
        return NULL;
    if (low_obj != Py_None && !buf_in(low_obj, &lb)) goto done;
    if (check_buf(&sb, 'i', 8, "place_digits", "starts") ||
        check_buf(&bb, 'i', 8, "place_digits", "bounds") ||
        check_buf(&lb, 'u', 0, "place_digits", "low") ||
        check_buf(&yb, yb.itemsize == 8 ? 'f' : 'u', 0, "place_digits", "y") ||
        check_buf(&xb, 'n', 8, "place_digits", "s") ||
        check_buf(&yo, 'f', 8, "place_digits", "y_out") ||
        check_buf(&so, 'n', 8, "place_digits", "s_out"))
        goto done;
    if (strcmp(xb.format ? xb.format : "B", so.format ? so.format : "B") != 0) {
        PyErr_SetString(PyExc_TypeError, "place_digits: s and s_out must hold items of one type");
        goto done;
    }
    Py_ssize_t count = sb.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t n_digits = bb.len / (Py_ssize_t)sizeof(int64_t) - 1;
    Py_ssize_t span = xb.len / 8, m = so.len / 8;
    int y_size = span > 0 ? (int)(yb.len / span) : 1;
    int low_size = span > 0 ? (int)(lb.len / span) : 1;
    int tags = y_size == 2 || y_size == 4;
    if (yb.itemsize != y_size) y_size = 0; /* refused below */
    const int64_t *bounds = bb.buf;
    int bad = shift < 1 || shift > 32 || skew < 0 || first < 0 || stop <= first ||
              stop > n_digits || count < 1 || count > ((stop - first) << shift) ||
              so.len != m * 8 || yo.len != m * 8 || xb.len != span * 8 ||
              yb.len != span * y_size ||
              (tags ? lb.obj != NULL || shift > 8 * y_size - 8
                    : lb.obj == NULL || lb.len != span * low_size || lb.itemsize != low_size ||
                          (y_size != 1 && y_size != 8) ||
                          (low_size != 1 && low_size != 2 && low_size != 4));
    for (Py_ssize_t h = first; h < stop && !bad; h++)
        bad = bounds[h + 1] < bounds[h] || bounds[h] + h * skew < 0 ||
              bounds[h + 1] + h * skew > span;
    if (!bad) bad = bounds[stop] - bounds[first] != m;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "place_digits: inconsistent buffers");
        goto done;
    }
    lnext = PyMem_RawMalloc((size_t)count * sizeof(int64_t));
    if (!lnext) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(lnext, sb.buf, (size_t)count * sizeof(int64_t));
    int over = 0;
    const void *low_buf = lb.buf;
    double *y_out = yo.buf;
    uint64_t *s_out = so.buf;
    const uint64_t *s_in = xb.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t h = first; h < stop && !over; h++) {
        const int64_t a = bounds[h] + h * skew, z = bounds[h + 1] + h * skew;
        const uint64_t base = (uint64_t)(h - first) << shift;
#define PLACE_DIGIT(LT, Y_READ)                                              \
        for (int64_t i = a; i < z; i++) {                                    \
            LOW_PLACE(LT, base)                                              \
            y_out[p] = Y_READ;                                               \
            s_out[p] = s_in[i];                                              \
        }
#define PLACE_TAGGED(T)                                                      \
        for (int64_t i = a; i < z; i++) {                                    \
            T tag = ((const T *)tag_in)[i];                                  \
            PLACE_AT(base + (tag >> 8))                                      \
            y_out[p] = (double)(tag & 0xFF);                                 \
            s_out[p] = s_in[i];                                              \
        }
        if (tags) {
            const void *tag_in = yb.buf;
            if (y_size == 2)
                PLACE_TAGGED(uint16_t)
            else
                PLACE_TAGGED(uint32_t)
        } else if (y_size == 1) {
            const uint8_t *y_in = yb.buf;
            switch (low_size) {
            case 1: PLACE_DIGIT(uint8_t, (double)y_in[i]) break;
            case 2: PLACE_DIGIT(uint16_t, (double)y_in[i]) break;
            default: PLACE_DIGIT(uint32_t, (double)y_in[i]) break;
            }
        } else {
            const double *y_in = yb.buf;
            switch (low_size) {
            case 1: PLACE_DIGIT(uint8_t, y_in[i]) break;
            case 2: PLACE_DIGIT(uint16_t, y_in[i]) break;
            default: PLACE_DIGIT(uint32_t, y_in[i]) break;
            }
        }
#undef PLACE_DIGIT
#undef PLACE_TAGGED
    }
    Py_END_ALLOW_THREADS
    if (over) {
        PyErr_SetString(PyExc_ValueError, "place_digits: a code or a code start is out of range");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_RawFree(lnext);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&bb);
    if (lb.obj) PyBuffer_Release(&lb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yo);
    PyBuffer_Release(&so);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Memory accounting of buffers mapped by skrank._native.                    */
/* ------------------------------------------------------------------------ */

/* The tracemalloc domain of the memory skrank maps itself ("skrk"). */
#define TRACE_DOMAIN 0x736b726bu

PyDoc_STRVAR(trace_memory_doc,
"trace_memory(address, size, track)\n\n"
"Tells tracemalloc that size bytes at address were allocated (track) or\n"
"released (not track) outside Python's allocators: memory skrank maps\n"
"itself is then counted as numpy's and the kernels' scratch are.");

static PyObject *trace_memory(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long address;
    Py_ssize_t size;
    int track;
    if (!PyArg_ParseTuple(args, "Knp", &address, &size, &track)) return NULL;
    if (track)
        PyTraceMalloc_Track(TRACE_DOMAIN, (uintptr_t)address, (size_t)size);
    else
        PyTraceMalloc_Untrack(TRACE_DOMAIN, (uintptr_t)address);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"descending_rows", descending_rows, METH_VARARGS, descending_rows_doc},
    {"score_keys", score_keys, METH_VARARGS, score_keys_doc},
    {"descending_keys", descending_keys, METH_VARARGS, descending_keys_doc},
    {"top_order", top_order, METH_VARARGS, top_order_doc},
    {"first_hits", first_hits, METH_VARARGS, first_hits_doc},
    {"head_sums", head_sums, METH_VARARGS, head_sums_doc},
    {"grade_counts", grade_counts, METH_VARARGS, grade_counts_doc},
    {"ap_terms", ap_terms, METH_VARARGS, ap_terms_doc},
    {"ap_sums", ap_sums, METH_VARARGS, ap_sums_doc},
    {"row_before", row_before, METH_VARARGS, row_before_doc},
    {"count_codes", count_codes, METH_VARARGS, count_codes_doc},
    {"move_high", move_high, METH_VARARGS, move_high_doc},
    {"move_low", move_low, METH_VARARGS, move_low_doc},
    {"place_digits", place_digits, METH_VARARGS, place_digits_doc},
    {"trace_memory", trace_memory, METH_VARARGS, trace_memory_doc},
    {"count_groups", count_groups, METH_VARARGS, count_groups_doc},
    {"fill_groups", fill_groups, METH_VARARGS, fill_groups_doc},
    {"segment_sums", segment_sums, METH_VARARGS, segment_sums_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "_ckernels",
    "Compiled kernels of the ranking engine (see skrank._native).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__ckernels(void) { return PyModule_Create(&module); }
