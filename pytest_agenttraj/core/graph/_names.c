/* One C loop for strict graph matching: how many leading entries two paths share while both
 * are plain names (exact str).  Python's list comparison and a separate type check of every
 * entry walk a path twice; this walks it once and compares names as CPython's str equality
 * does (same object, or same length, kind and code units).  Optional: without it the package
 * compares in Python (path.py) with the same results. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static int
same_name(PyObject *one, PyObject *other)
{
    if (one == other) {
        return 1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(one) < 0 || PyUnicode_READY(other) < 0) {
        return -1;
    }
#endif
    Py_ssize_t length = PyUnicode_GET_LENGTH(one);
    if (length != PyUnicode_GET_LENGTH(other)) {
        return 0;
    }
    int kind = PyUnicode_KIND(one);
    if (kind != PyUnicode_KIND(other)) {
        return 0;
    }
    return memcmp(PyUnicode_DATA(one), PyUnicode_DATA(other), (size_t)length * kind) == 0;
}

PyDoc_STRVAR(shared_names_doc,
"shared_names(one, other, /)\n--\n\n"
"How many leading entries the lists or tuples one and other share while both are exact str:\n"
"the index of the first entry that differs, or that is not an exact str on either side, or\n"
"the shorter length.");

static PyObject *
shared_names(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "shared_names expected 2 arguments, got %zd", nargs);
        return NULL;
    }
    PyObject *one = args[0], *other = args[1];
    if (!(PyList_CheckExact(one) || PyTuple_CheckExact(one))
        || !(PyList_CheckExact(other) || PyTuple_CheckExact(other))) {
        PyErr_SetString(PyExc_TypeError, "shared_names compares lists or tuples");
        return NULL;
    }
    /* No Python code runs below (exact str only), so neither sequence can change meanwhile. */
    PyObject **left = PySequence_Fast_ITEMS(one);
    PyObject **right = PySequence_Fast_ITEMS(other);
    Py_ssize_t limit = PySequence_Fast_GET_SIZE(one);
    if (PySequence_Fast_GET_SIZE(other) < limit) {
        limit = PySequence_Fast_GET_SIZE(other);
    }
    Py_ssize_t index = 0;
    for (; index < limit; index++) {
        PyObject *a = left[index], *b = right[index];
        if (!PyUnicode_CheckExact(a) || !PyUnicode_CheckExact(b)) {
            break;
        }
        int same = same_name(a, b);
        if (same < 0) {
            return NULL;
        }
        if (!same) {
            break;
        }
    }
    return PyLong_FromSsize_t(index);
}

static PyMethodDef methods[] = {
    {"shared_names", (PyCFunction)(void (*)(void))shared_names, METH_FASTCALL, shared_names_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pytest_agenttraj.core.graph._names",
    .m_doc = "The C loop of strict graph matching (optional).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__names(void)
{
    return PyModuleDef_Init(&module_def);
}
