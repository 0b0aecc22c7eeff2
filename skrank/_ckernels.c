/*
 * Compiled kernels of the ranking engine (skrank._engine).
 *
 * Each function has a numpy equivalent in skrank/_engine.py, which is used
 * when this extension is not built (it is optional) and which the tests
 * check it against. The functions read C-contiguous buffers, release the
 * GIL while they work and return their results as bytearrays that
 * skrank/_native.py views as numpy arrays, so that no numpy headers are
 * needed to build them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

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
 * vectorises; few items pass the bound, which are then ranked exactly. */
#define FAN 16

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
    for (int i = 1; i < FAN; i++) { /* descending */
        double v = mx[i];
        int h = i - 1;
        while (h >= 0 && mx[h] < v) {
            mx[h + 1] = mx[h];
            h--;
        }
        mx[h + 1] = v;
    }
    return mx[k];
}

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
    Py_buffer sb = {0}, kb = {0}, nb = {0};
    PyObject *key_obj, *n_obj;
    Py_ssize_t m, L, k;
    int mode, whole_group;
    if (!PyArg_ParseTuple(args, "y*OOnnnip", &sb, &key_obj, &n_obj, &m, &L, &k,
                          &mode, &whole_group))
        return NULL;
    PyObject *result = NULL;
    const double *key = NULL;
    const int64_t *n_items = NULL;
    if (PyObject_GetBuffer(key_obj, &kb, PyBUF_SIMPLE) < 0) goto done;
    key = (const double *)kb.buf;
    if (n_obj != Py_None) {
        if (PyObject_GetBuffer(n_obj, &nb, PyBUF_SIMPLE) < 0) goto done;
        n_items = (const int64_t *)nb.buf;
    }
    if (m < 0 || L < 1 || k < 1 || sb.len < m * L * (Py_ssize_t)sizeof(double) ||
        kb.len < m * L * (Py_ssize_t)sizeof(double) ||
        (n_items != NULL && nb.len < m * (Py_ssize_t)sizeof(int64_t))) {
        PyErr_SetString(PyExc_ValueError, "top_order: inconsistent buffers");
        goto done;
    }
    const double *s = (const double *)sb.buf;

    int failed = 0;
    Py_ssize_t width = 0;
    /* the listed positions of every row, one after the other */
    Py_ssize_t cap = m * (k + 16) + 64, used = 0;
    int64_t *list = NULL, *row_end = NULL, *cand = NULL, *tmp = NULL;
    double *work = NULL;

    Py_BEGIN_ALLOW_THREADS
    list = malloc((size_t)cap * sizeof(int64_t));
    row_end = malloc((size_t)(m + 1) * sizeof(int64_t));
    cand = malloc((size_t)L * sizeof(int64_t));
    tmp = malloc((size_t)L * sizeof(int64_t));
    work = malloc((size_t)(L + 8) * sizeof(double));
    if (!list || !row_end || !cand || !tmp || !work) failed = 1;
    for (Py_ssize_t r = 0; r < m && !failed; r++) {
        const double *row = s + r * L;
        Py_ssize_t n = n_items ? (Py_ssize_t)n_items[r] : L;
        if (n > L) n = L;
        if (n < 0) n = 0;
        Py_ssize_t c = 0;
        const double *krow = key + r * L;
        if (k < FAN && k < n) {
            /* the items that pass the bound, then each one's place among
             * them by counting: the items above it, and the tied ones
             * that the rule puts first */
            double t = fan_bound(row, n, k - 1);
            for (Py_ssize_t j = 0; j < n; j++) {
                cand[c] = j;
                work[c] = row[j];
                c += row[j] >= t;
            }
            if (c <= MAX_COUNTED) {
                Py_ssize_t listed = 0;
                /* padded to a multiple of 8 with values no item is below */
                int padded = (int)((c + 7) & ~(Py_ssize_t)7);
                for (int j = (int)c; j < padded; j++) work[j] = -HUGE_VAL;
                for (Py_ssize_t i = 0; i < c; i++) {
                    double x = work[i];
                    int above = 0;
                    Py_ssize_t first = 0;
                    above = count_above(work, padded, x);
                    if (above >= k) continue;
                    if (mode == MODE_POSITION) {
                        for (Py_ssize_t j = 0; j < i; j++) first += work[j] == x;
                    } else {
                        double kx = krow[cand[i]];
                        for (Py_ssize_t j = 0; j < c; j++) {
                            double kj = krow[cand[j]];
                            int better = mode == MODE_OPTIMISTIC ? kj > kx : kj < kx;
                            first += (work[j] == x) & (better | ((kj == kx) & (j < i)));
                        }
                    }
                    Py_ssize_t at = above + first;
                    if (!whole_group && at >= k) continue;
                    tmp[at] = cand[i];
                    listed++;
                }
                if (used + listed > cap) {
                    Py_ssize_t grown = cap * 2 > used + listed ? cap * 2 : used + listed;
                    int64_t *more = realloc(list, (size_t)grown * sizeof(int64_t));
                    if (!more) {
                        failed = 1;
                        break;
                    }
                    list = more;
                    cap = grown;
                }
                int64_t base = (int64_t)r * L;
                for (Py_ssize_t j = 0; j < listed; j++) list[used + j] = base + tmp[j];
                used += listed;
                row_end[r] = used;
                if (listed > width) width = listed;
                continue;
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
        if (used + c > cap) {
            Py_ssize_t grown = cap * 2 > used + c ? cap * 2 : used + c;
            int64_t *more = realloc(list, (size_t)grown * sizeof(int64_t));
            if (!more) {
                failed = 1;
                break;
            }
            list = more;
            cap = grown;
        }
        int64_t base = (int64_t)r * L;
        for (Py_ssize_t j = 0; j < c; j++) list[used + j] = base + cand[j];
        used += c;
        row_end[r] = used;
        if (c > width) width = c;
    }
    Py_END_ALLOW_THREADS

    if (failed) {
        PyErr_NoMemory();
    } else {
        Py_ssize_t cells = m * width;
        PyObject *pos = PyByteArray_FromStringAndSize(NULL, cells * (Py_ssize_t)sizeof(int64_t));
        PyObject *ys = PyByteArray_FromStringAndSize(NULL, cells * (Py_ssize_t)sizeof(double));
        PyObject *ss = PyByteArray_FromStringAndSize(NULL, cells * (Py_ssize_t)sizeof(double));
        if (pos && ys && ss) {
            int64_t *out = (int64_t *)PyByteArray_AS_STRING(pos);
            double *out_y = (double *)PyByteArray_AS_STRING(ys);
            double *out_s = (double *)PyByteArray_AS_STRING(ss);
            Py_BEGIN_ALLOW_THREADS
            Py_ssize_t from = 0;
            for (Py_ssize_t r = 0; r < m; r++) {
                Py_ssize_t c = row_end[r] - from;
                int64_t *o = out + r * width;
                double *oy = out_y + r * width, *os = out_s + r * width;
                for (Py_ssize_t j = 0; j < c; j++) {
                    int64_t at = list[from + j];
                    o[j] = at;
                    oy[j] = key[at];
                    os[j] = s[at];
                }
                for (Py_ssize_t j = c; j < width; j++) {
                    o[j] = -1;
                    oy[j] = 0.0;
                    os[j] = -HUGE_VAL;
                }
                from = row_end[r];
            }
            Py_END_ALLOW_THREADS
            result = Py_BuildValue("(NNNn)", pos, ys, ss, width);
        } else {
            Py_XDECREF(pos);
            Py_XDECREF(ys);
            Py_XDECREF(ss);
        }
    }
    free(list);
    free(row_end);
    free(cand);
    free(tmp);
    free(work);
done:
    PyBuffer_Release(&sb);
    if (kb.obj) PyBuffer_Release(&kb);
    if (nb.obj) PyBuffer_Release(&nb);
    return result;
}

/* ------------------------------------------------------------------------ */
/* grade_counts                                                              */
/* ------------------------------------------------------------------------ */

#define MAX_GRADE 6

PyDoc_STRVAR(grade_counts_doc,
"grade_counts(y, m, n) -> (bytearray, top) or None\n\n"
"For the C-contiguous (m, n) float64 relevance y: when every value is an\n"
"integer in 0 .. 6 and the largest, top, is at least 1, the number of\n"
"values >= g in each row for g = 1 .. 6, as an (m, 6) int64 matrix (the\n"
"columns past top are 0); otherwise None.");

static PyObject *grade_counts(PyObject *self, PyObject *args)
{
    Py_buffer yb = {0};
    Py_ssize_t m, n;
    if (!PyArg_ParseTuple(args, "y*nn", &yb, &m, &n)) return NULL;
    PyObject *result = NULL;
    if (m < 0 || n < 0 || yb.len < m * n * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "grade_counts: inconsistent buffer");
        goto done;
    }
    result = PyByteArray_FromStringAndSize(NULL, m * MAX_GRADE * (Py_ssize_t)sizeof(int64_t));
    if (!result) goto done;
    const double *y = (const double *)yb.buf;
    int64_t *out = (int64_t *)PyByteArray_AS_STRING(result);
    int ok = 1, top = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m && ok; r++) {
        /* four tables, so that equal neighbours do not wait on each other */
        int64_t count[4][MAX_GRADE + 1] = {{0}};
        const double *row = y + r * n;
        int bad = 0;
        Py_ssize_t j = 0;
        for (; j < n; j++) {
            double v = row[j];
            double w = v > (double)MAX_GRADE ? (double)MAX_GRADE : v;
            w = w > 0.0 ? w : 0.0;
            int g = (int)w;
            bad |= (double)g != v; /* out of range, not an integer, or NaN */
            count[j & 3][g]++;
        }
        if (bad) {
            ok = 0;
            break;
        }
        int64_t above = 0;
        for (int g = MAX_GRADE; g >= 1; g--) {
            int64_t here = count[0][g] + count[1][g] + count[2][g] + count[3][g];
            above += here;
            out[r * MAX_GRADE + g - 1] = above;
            if (here && g > top) top = g;
        }
    }
    Py_END_ALLOW_THREADS
    if (!ok || top == 0) {
        Py_DECREF(result);
        result = Py_None;
        Py_INCREF(result);
    } else {
        result = Py_BuildValue("(Ni)", result, top);
    }
done:
    PyBuffer_Release(&yb);
    return result;
}

static PyMethodDef methods[] = {
    {"top_order", top_order, METH_VARARGS, top_order_doc},
    {"grade_counts", grade_counts, METH_VARARGS, grade_counts_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ckernels",
    "Compiled kernels of the ranking engine (see skrank._native).", -1, methods,
};

PyMODINIT_FUNC PyInit__ckernels(void) { return PyModule_Create(&module); }
