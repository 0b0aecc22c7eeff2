/*
 * Compiled kernels of the ranking engine (skrank._engine).
 *
 * Each function has a numpy equivalent in skrank/_engine.py, which is used
 * when this extension is not built (it is optional) and which the tests
 * check it against. The functions read C-contiguous buffers, release the
 * GIL while they work and write into buffers the caller allocated, so that
 * no numpy headers are needed to build them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

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

/* The positions of one row appended to a growing list: the row's items
 * p[0..c) as flat positions base + p[j]. Returns 0, or -1 when the list
 * cannot grow. */
typedef struct {
    int64_t *list;
    Py_ssize_t cap, used, width;
} row_list;

static int append_row(row_list *out, int64_t base, const int64_t *p, Py_ssize_t c)
{
    if (out->used + c > out->cap) {
        Py_ssize_t grown = out->cap * 2 > out->used + c ? out->cap * 2 : out->used + c;
        int64_t *more = realloc(out->list, (size_t)grown * sizeof(int64_t));
        if (!more) return -1;
        out->list = more;
        out->cap = grown;
    }
    for (Py_ssize_t j = 0; j < c; j++) out->list[out->used + j] = base + p[j];
    out->used += c;
    if (c > out->width) out->width = c;
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
    /* the listed positions of every row, one after the other */
    row_list rows = {NULL, m * (k + 16) + 64, 0, 0};
    int64_t *row_end = NULL, *cand = NULL, *tmp = NULL;
    double *work = NULL;

    Py_BEGIN_ALLOW_THREADS
    rows.list = malloc((size_t)rows.cap * sizeof(int64_t));
    row_end = malloc((size_t)(m + 1) * sizeof(int64_t));
    cand = malloc((size_t)L * sizeof(int64_t));
    tmp = malloc((size_t)L * sizeof(int64_t));
    work = malloc((size_t)(L + 8) * sizeof(double));
    if (!rows.list || !row_end || !cand || !tmp || !work) failed = 1;
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
                if (append_row(&rows, (int64_t)r * L, tmp, listed) < 0) {
                    failed = 1;
                    break;
                }
                row_end[r] = rows.used;
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
        if (append_row(&rows, (int64_t)r * L, cand, c) < 0) {
            failed = 1;
            break;
        }
        row_end[r] = rows.used;
    }
    Py_END_ALLOW_THREADS

    if (failed) {
        PyErr_NoMemory();
    } else {
        Py_ssize_t cells = m * rows.width;
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
                int64_t *o = out + r * rows.width;
                double *oy = out_y + r * rows.width, *os = out_s + r * rows.width;
                for (Py_ssize_t j = 0; j < c; j++) {
                    int64_t at = rows.list[from + j];
                    o[j] = at;
                    oy[j] = key[at];
                    os[j] = s[at];
                }
                for (Py_ssize_t j = c; j < rows.width; j++) {
                    o[j] = -1;
                    oy[j] = 0.0;
                    os[j] = -HUGE_VAL;
                }
                from = row_end[r];
            }
            Py_END_ALLOW_THREADS
            result = Py_BuildValue("(NNNn)", pos, ys, ss, rows.width);
        } else {
            Py_XDECREF(pos);
            Py_XDECREF(ys);
            Py_XDECREF(ss);
        }
    }
    free(rows.list);
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

/* ------------------------------------------------------------------------ */
/* group_rows: a stable counting sort of rows by a small integer code.        */
/* ------------------------------------------------------------------------ */

PyDoc_STRVAR(group_rows_doc,
"group_rows(codes, code_size, n_codes, starts, columns, outputs, sizes)\n\n"
"Writes the rows of each column into its output in grouped order: the\n"
"rows of code 0 first, then those of code 1, and so on, keeping the input\n"
"order within a code (a stable counting sort, one sequential pass over the\n"
"rows per column). codes: a buffer of n unsigned integers of code_size\n"
"bytes (2 or 8), each below n_codes; starts: an int64 buffer of n_codes\n"
"entries, the first output position of each code (the cumulative counts),\n"
"used as scratch and left as it was; columns and outputs: sequences of\n"
"buffers of n items of sizes[i] bytes (1, 2, 4 or 8). Two float64 columns\n"
"given first move in one pass.");

/* A row of `size` bytes from in[i] to out[p]. */
#define MOVE(T)                                                              \
    for (Py_ssize_t i = 0; i < n; i++) {                                     \
        int64_t p = next[CODE(i)]++;                                          \
        ((T *)out)[p] = ((const T *)in)[i];                                   \
    }

static int move_column(const void *codes, int code_size, int64_t *next, Py_ssize_t n,
                       const void *in, void *out, Py_ssize_t size)
{
    if (code_size == 2) {
#define CODE(i) (((const uint16_t *)codes)[i])
        switch (size) {
        case 1: MOVE(uint8_t) return 0;
        case 2: MOVE(uint16_t) return 0;
        case 4: MOVE(uint32_t) return 0;
        case 8: MOVE(uint64_t) return 0;
        }
#undef CODE
    } else {
#define CODE(i) (((const uint64_t *)codes)[i])
        switch (size) {
        case 1: MOVE(uint8_t) return 0;
        case 2: MOVE(uint16_t) return 0;
        case 4: MOVE(uint32_t) return 0;
        case 8: MOVE(uint64_t) return 0;
        }
#undef CODE
    }
    return -1;
}

/* Two 8-byte columns in one pass: one position per row for both. */
#define MOVE_PAIR                                                            \
    for (Py_ssize_t i = 0; i < n; i++) {                                     \
        int64_t p = next[CODE(i)]++;                                          \
        out_a[p] = in_a[i];                                                   \
        out_b[p] = in_b[i];                                                   \
    }

static void move_pair(const void *codes, int code_size, int64_t *next, Py_ssize_t n,
                      const uint64_t *in_a, uint64_t *out_a, const uint64_t *in_b,
                      uint64_t *out_b)
{
    if (code_size == 2) {
#define CODE(i) (((const uint16_t *)codes)[i])
        MOVE_PAIR
#undef CODE
    } else {
#define CODE(i) (((const uint64_t *)codes)[i])
        MOVE_PAIR
#undef CODE
    }
}

#define MAX_COLUMNS 8

static PyObject *group_rows(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer cb = {0}, sb = {0};
    Py_buffer in[MAX_COLUMNS], out[MAX_COLUMNS];
    Py_ssize_t sizes[MAX_COLUMNS];
    int code_size;
    Py_ssize_t n_codes;
    PyObject *columns, *outputs, *size_list;
    int n_in = 0, n_out = 0;
    PyObject *result = NULL;
    int64_t *next = NULL;
    if (!PyArg_ParseTuple(args, "y*iny*OOO", &cb, &code_size, &n_codes, &sb, &columns,
                          &outputs, &size_list))
        return NULL;
    Py_ssize_t n_cols = PySequence_Size(columns);
    if (n_cols < 0) goto done;
    if (n_cols > MAX_COLUMNS || PySequence_Size(outputs) != n_cols ||
        PySequence_Size(size_list) != n_cols || (code_size != 2 && code_size != 8) ||
        n_codes < 0 || sb.len < n_codes * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "group_rows: inconsistent arguments");
        goto done;
    }
    Py_ssize_t n = cb.len / code_size;
    for (Py_ssize_t c = 0; c < n_cols; c++) {
        PyObject *item = PySequence_GetItem(size_list, c);
        if (!item) goto done;
        sizes[c] = PyLong_AsSsize_t(item);
        Py_DECREF(item);
        if (sizes[c] == -1 && PyErr_Occurred()) goto done;
        item = PySequence_GetItem(columns, c);
        if (!item) goto done;
        int bad = PyObject_GetBuffer(item, &in[c], PyBUF_SIMPLE);
        Py_DECREF(item);
        if (bad < 0) goto done;
        n_in++;
        item = PySequence_GetItem(outputs, c);
        if (!item) goto done;
        bad = PyObject_GetBuffer(item, &out[c], PyBUF_WRITABLE);
        Py_DECREF(item);
        if (bad < 0) goto done;
        n_out++;
        if (in[c].len != n * sizes[c] || out[c].len != n * sizes[c] ||
            (sizes[c] != 1 && sizes[c] != 2 && sizes[c] != 4 && sizes[c] != 8)) {
            PyErr_SetString(PyExc_ValueError, "group_rows: inconsistent buffers");
            goto done;
        }
    }
    next = malloc((size_t)(n_codes > 0 ? n_codes : 1) * sizeof(int64_t));
    if (!next) {
        PyErr_NoMemory();
        goto done;
    }
    /* codes must stay below n_codes: checked before any write */
    int out_of_range = 0;
    Py_BEGIN_ALLOW_THREADS
    if (code_size == 2) {
        const uint16_t *codes = cb.buf;
        for (Py_ssize_t i = 0; i < n; i++) out_of_range |= codes[i] >= n_codes;
    } else {
        const uint64_t *codes = cb.buf;
        for (Py_ssize_t i = 0; i < n; i++) out_of_range |= codes[i] >= (uint64_t)n_codes;
    }
    if (!out_of_range) {
        Py_ssize_t c = 0;
        if (n_cols >= 2 && sizes[0] == 8 && sizes[1] == 8) {
            memcpy(next, sb.buf, (size_t)n_codes * sizeof(int64_t));
            move_pair(cb.buf, code_size, next, n, in[0].buf, out[0].buf, in[1].buf,
                      out[1].buf);
            c = 2;
        }
        for (; c < n_cols; c++) {
            memcpy(next, sb.buf, (size_t)n_codes * sizeof(int64_t));
            move_column(cb.buf, code_size, next, n, in[c].buf, out[c].buf, sizes[c]);
        }
    }
    Py_END_ALLOW_THREADS
    if (out_of_range) {
        PyErr_SetString(PyExc_ValueError, "group_rows: a code is out of range");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    free(next);
    for (int c = 0; c < n_in; c++) PyBuffer_Release(&in[c]);
    for (int c = 0; c < n_out; c++) PyBuffer_Release(&out[c]);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&sb);
    return result;
}

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
    if (!PyArg_ParseTuple(args, "y*nn", &sb, &m, &w)) return NULL;
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
"fill_groups(s, m, w, bounds, size, row, start, row_first)\n\n"
"The tie groups of the (m, w) float64 scores s (see count_groups), G of\n"
"them, numbered row by row, written into int64 buffers: bounds the flat\n"
"position of each group's first item and m * w last; size (G entries)\n"
"each group's number of items; row and start (G + 1 entries, the last\n"
"one scratch) each group's row and the rank of its first item in the\n"
"row; row_first (m entries) the number of each row's first group; and\n"
"last (m * w bytes) whether each position is the last of its group.");

static PyObject *fill_groups(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer sb = {0}, bb = {0}, zb = {0}, rb = {0}, tb = {0}, fb = {0};
    Py_ssize_t m, w;
    PyObject *result = NULL;
    Py_buffer lb = {0};
    if (!PyArg_ParseTuple(args, "y*nnw*w*w*w*w*w*", &sb, &m, &w, &bb, &zb, &rb, &tb, &fb,
                          &lb))
        return NULL;
    Py_ssize_t n = m * w;
    Py_ssize_t G = bb.len / (Py_ssize_t)sizeof(int64_t) - 1;
    Py_ssize_t cell = (Py_ssize_t)sizeof(int64_t);
    if (m < 0 || w < 1 || sb.len != n * (Py_ssize_t)sizeof(double) || G < 0 ||
        zb.len != G * cell || rb.len != (G + 1) * cell || tb.len != (G + 1) * cell ||
        fb.len != m * cell || lb.len != n) {
        PyErr_SetString(PyExc_ValueError, "fill_groups: inconsistent buffers");
        goto done;
    }
    const double *s = sb.buf;
    int64_t *bounds = bb.buf, *size = zb.buf, *row = rb.buf, *start = tb.buf;
    int64_t *row_first = fb.buf;
    uint8_t *last = lb.buf;
    Py_ssize_t found = 0;
    Py_BEGIN_ALLOW_THREADS
    /* each position writes its group's entry, kept only where a group
     * begins (the next one overwrites it otherwise): no branch per item */
    for (Py_ssize_t r = 0; r < m && found <= G; r++) {
        const double *x = s + r * w;
        row_first[r] = found;
        bounds[found] = r * w;
        row[found] = r;
        start[found] = 0;
        found++;
        for (Py_ssize_t j = 1; j < w && found <= G; j++) {
            bounds[found] = r * w + j;
            row[found] = r;
            start[found] = j;
            int begins = x[j] != x[j - 1];
            last[r * w + j - 1] = (uint8_t)begins;
            found += begins;
        }
        last[r * w + w - 1] = 1;
    }
    if (found == G) {
        bounds[G] = n;
        for (Py_ssize_t g = 0; g < G; g++) size[g] = bounds[g + 1] - bounds[g];
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
    PyBuffer_Release(&bb);
    PyBuffer_Release(&zb);
    PyBuffer_Release(&rb);
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
    if (!PyArg_ParseTuple(args, "y*iy*w*", &xb, &kind, &lb, &ob)) return NULL;
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
        const uint8_t *x = xb.buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            out[g] += (double)(x[i] != 0);
            g += last[i] != 0;
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
    if (!PyArg_ParseTuple(args, "y*y*w*", &vb, &fb, &ob)) return NULL;
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

PyDoc_STRVAR(ap_terms_doc,
"ap_terms(rel, before, start, size, inside, harmonic, cut, out)\n\n"
"The tie-aware average-precision terms of G tie groups (skrank._measures\n"
"._ap_terms, McSherry & Najork): for a group of t items, r of them\n"
"relevant, R_before relevant items in the earlier groups of its row, first\n"
"rank T (0-based) and n positions inside the cutoff, with d = (r-1)/(t-1)\n"
"and c = R_before + 1 - (T+1) d, the term (r/t) (c (H[T+n] - H[T]) + d n);\n"
"a one-item group adds r (R_before + 1) / (T + 1), or 0 when cut is true\n"
"and it is outside the cutoff. rel, before, harmonic and out are float64\n"
"buffers, start, size and inside int64.");

static PyObject *ap_terms(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer rb = {0}, bb = {0}, tb = {0}, zb = {0}, ib = {0}, hb = {0}, ob = {0};
    int cut;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*pw*", &rb, &bb, &tb, &zb, &ib, &hb, &cut,
                          &ob))
        return NULL;
    Py_ssize_t G = rb.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t nh = hb.len / (Py_ssize_t)sizeof(double);
    const double *rel = rb.buf, *before = bb.buf, *H = hb.buf;
    const int64_t *start = tb.buf, *size = zb.buf, *inside = ib.buf;
    int ok = bb.len == rb.len && tb.len == rb.len && zb.len == rb.len &&
             ib.len == rb.len && ob.len == rb.len;
    for (Py_ssize_t g = 0; ok && g < G; g++)
        ok = start[g] >= 0 && inside[g] >= 0 && inside[g] <= size[g] &&
             start[g] + inside[g] < nh;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "ap_terms: inconsistent buffers");
        goto done;
    }
    double *out = ob.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t g = 0; g < G; g++) {
        double r = rel[g];
        int64_t T = start[g], t = size[g], n = inside[g];
        double term;
        if (t > 1) {
            double d = (r - 1.0) / (double)(t - 1);
            double c = before[g] + 1.0 - ((double)T + 1.0) * d;
            term = r / (double)t * (c * (H[T + n] - H[T]) + d * (double)n);
        } else {
            term = r * (before[g] + 1.0) / ((double)T + 1.0);
            if (cut && n <= 0) term = 0.0;
        }
        out[g] = term;
    }
    Py_END_ALLOW_THREADS
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
    if (!PyArg_ParseTuple(args, "y*nnw*", &yb, &m, &n, &ob)) return NULL;
    PyObject *result = NULL;
    if (m < 0 || n < 0 || yb.len != m * n * (Py_ssize_t)sizeof(double) ||
        ob.len != m * MAX_GRADE * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "grade_counts: inconsistent buffers");
        goto done;
    }
    const double *y = yb.buf;
    int64_t *out = ob.buf;
    int bad = 0, top = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m && !bad; r++) {
        /* one count per grade, each a comparison: no table, no branch */
        int64_t c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0, c6 = 0;
        int64_t wrong = 0;
        const double *row = y + r * n;
        Py_ssize_t j = 0;
#if defined(__GNUC__)
        typedef double v2d __attribute__((vector_size(16)));
        typedef long long v2l __attribute__((vector_size(16)));
        v2l a1 = {0, 0}, a2 = a1, a3 = a1, a4 = a1, a5 = a1, a6 = a1, w = a1;
        const v2d g0 = {0.0, 0.0}, g1 = {1.0, 1.0}, g2 = {2.0, 2.0}, g3 = {3.0, 3.0};
        const v2d g4 = {4.0, 4.0}, g5 = {5.0, 5.0}, g6 = {6.0, 6.0};
        for (; j + 2 <= n; j += 2) {
            v2d v;
            memcpy(&v, row + j, sizeof v);
            /* comparisons give -1 where true */
            a1 -= (v2l)(v >= g1);
            a2 -= (v2l)(v >= g2);
            a3 -= (v2l)(v >= g3);
            a4 -= (v2l)(v >= g4);
            a5 -= (v2l)(v >= g5);
            a6 -= (v2l)(v >= g6);
            w |= (v2l)(v != g0) & (v2l)(v != g1) & (v2l)(v != g2) & (v2l)(v != g3) &
                 (v2l)(v != g4) & (v2l)(v != g5) & (v2l)(v != g6);
        }
        c1 = a1[0] + a1[1], c2 = a2[0] + a2[1], c3 = a3[0] + a3[1];
        c4 = a4[0] + a4[1], c5 = a5[0] + a5[1], c6 = a6[0] + a6[1];
        wrong = w[0] | w[1];
#endif
        for (; j < n; j++) {
            double v = row[j];
            /* not one of the grades (out of range, not an integer, NaN) */
            wrong |= (v != 0.0) & (v != 1.0) & (v != 2.0) & (v != 3.0) & (v != 4.0) &
                     (v != 5.0) & (v != 6.0);
            c1 += v >= 1.0;
            c2 += v >= 2.0;
            c3 += v >= 3.0;
            c4 += v >= 4.0;
            c5 += v >= 5.0;
            c6 += v >= 6.0;
        }
        bad = wrong != 0;
        int64_t *o = out + r * MAX_GRADE;
        o[0] = c1, o[1] = c2, o[2] = c3, o[3] = c4, o[4] = c5, o[5] = c6;
        for (int g = MAX_GRADE; g > top; g--)
            if (o[g - 1]) {
                top = g;
                break;
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
"head_sums(a, start, size, row_first, k, table, mode, out)\n\n"
"Per row, the sum over its tie groups that start before rank k of a\n"
"group's value a times its part of a per-rank weight: with T the group's\n"
"first rank, t its size and n = min(k - T, t) its positions inside the\n"
"cutoff, mode 0 adds (a / t) * (table[T + n] - table[T]) (table: the\n"
"cumulative weights, float64) and mode 1 adds (a * n) / t, in group order\n"
"from 0.0. a is float64, start, size and row_first int64 (groups numbered\n"
"row by row, row_first the number of each row's first group), out has\n"
"one float64 per row.");

static PyObject *head_sums(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer ab = {0}, tb = {0}, zb = {0}, fb = {0}, wb = {0}, ob = {0};
    Py_ssize_t k;
    int mode;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*iw*", &ab, &tb, &zb, &fb, &k, &wb, &mode,
                          &ob))
        return NULL;
    Py_ssize_t G = ab.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t m = fb.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t nw = wb.len / (Py_ssize_t)sizeof(double);
    const int64_t *start = tb.buf, *size = zb.buf, *row_first = fb.buf;
    int ok = (mode == 0 || mode == 1) && k >= 0 && tb.len == ab.len && zb.len == ab.len &&
             ob.len == m * (Py_ssize_t)sizeof(double) && (mode == 1 || nw > k);
    for (Py_ssize_t r = 0; ok && r < m; r++)
        ok = row_first[r] >= 0 && row_first[r] <= G && (r == 0 || row_first[r] >= row_first[r - 1]);
    for (Py_ssize_t g = 0; ok && g < G; g++) ok = start[g] >= 0 && size[g] >= 1;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "head_sums: inconsistent buffers");
        goto done;
    }
    const double *a = ab.buf, *table = wb.buf;
    double *out = ob.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t end = r + 1 < m ? row_first[r + 1] : G;
        double acc = 0.0;
        for (int64_t g = row_first[r]; g < end && start[g] < k; g++) {
            int64_t T = start[g], t = size[g];
            int64_t n = k - T < t ? k - T : t;
            if (mode == 0)
                acc += a[g] / (double)t * (table[T + n] - table[T]);
            else
                acc += a[g] * (double)n / (double)t;
        }
        out[r] = acc;
    }
    Py_END_ALLOW_THREADS
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
    if (!PyArg_ParseTuple(args, "y*y*y*nw*", &rb, &tb, &fb, &k, &ob)) return NULL;
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

static PyMethodDef methods[] = {
    {"top_order", top_order, METH_VARARGS, top_order_doc},
    {"first_hits", first_hits, METH_VARARGS, first_hits_doc},
    {"head_sums", head_sums, METH_VARARGS, head_sums_doc},
    {"grade_counts", grade_counts, METH_VARARGS, grade_counts_doc},
    {"ap_terms", ap_terms, METH_VARARGS, ap_terms_doc},
    {"row_before", row_before, METH_VARARGS, row_before_doc},
    {"group_rows", group_rows, METH_VARARGS, group_rows_doc},
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
