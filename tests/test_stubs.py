"""The type stubs of the generated public functions (``skrank/**/*.pyi``).

The stubs are what static tools (pyright, Pylance, mypy, jedi, PyCharm) read
in place of the modules whose functions get their signatures at import. They
are written by ``tools/make_stubs.py``; these tests regenerate them and
compare with the files, and check the files themselves against the live
functions: every parameter's name, kind and default as
:func:`inspect.signature` gives it, every ``Literal`` annotation against the
options the function accepts, every name of every ``__all__``.
"""

import ast
import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

import skrank

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(skrank.__file__).parent


def _tool():
    spec = importlib.util.spec_from_file_location(
        "make_stubs", ROOT / "tools" / "make_stubs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _committed() -> dict[Path, str]:
    return {
        path.relative_to(PACKAGE.parent): path.read_text()
        for path in sorted(PACKAGE.rglob("*.pyi"))
    }


def _module_name(path: Path) -> str:
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


STUBS = _committed()
TREES = {_module_name(path): ast.parse(text) for path, text in STUBS.items()}
FUNCTIONS = [
    (module, node)
    for module, tree in TREES.items()
    for node in tree.body
    if isinstance(node, ast.FunctionDef)
]


def _static_all(tree: ast.Module) -> list[str]:
    (value,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__all__"]
    ]
    return ast.literal_eval(value)


def test_stubs_are_those_the_generator_writes():
    # the files are the generator's output for the skrank under test: a
    # declaration changed without `python tools/make_stubs.py` fails here
    generated = _tool().stubs()
    assert sorted(generated) == sorted(STUBS)
    for path, text in generated.items():
        assert text == STUBS[path], f"{path} differs; run python tools/make_stubs.py"


def test_stubs_cover_the_generated_functions():
    # every module whose functions skrank._faces builds (the families of
    # skrank.metrics and skrank.retrieval) has a stub, and so have the
    # packages that re-export them
    from skrank._faces import _EXPORTED

    generated = {m for m in _EXPORTED if m.startswith(("skrank.metrics", "skrank.ret"))}
    assert generated <= set(TREES)
    assert {"skrank", "skrank.metrics"} <= set(TREES)


@pytest.mark.parametrize("module", sorted(TREES))
def test_stub_all_and_names_match_the_module(module):
    # a stub replaces its module for static tools: its __all__ is the
    # module's, and it binds every name of it (and nothing the module lacks)
    live = importlib.import_module(module)
    tree = TREES[module]
    assert _static_all(tree) == list(live.__all__)
    bound = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)} | {
        alias.asname
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 1
        for alias in node.names
    }
    assert set(live.__all__) <= bound
    for name in bound:
        assert hasattr(live, name), f"{module}.{name}"


@pytest.mark.parametrize("module", sorted(TREES))
def test_stub_reexports_are_the_live_objects(module):
    # `from .metrics import ndcg_score as ndcg_score` in skrank's stub:
    # skrank.metrics.ndcg_score is skrank.ndcg_score, and the name is in the
    # __all__ of the stubbed module it comes from (or the module has no stub)
    live = importlib.import_module(module)
    base = module if (PACKAGE.parent / Path(*module.split("."))).is_dir() else None
    assert base is not None or not any(
        isinstance(n, ast.ImportFrom) and n.level == 1 for n in TREES[module].body
    )
    for node in TREES[module].body:
        if not (isinstance(node, ast.ImportFrom) and node.level == 1):
            continue
        source = f"{base}.{node.module}" if node.module else base
        for alias in node.names:
            assert alias.asname == alias.name  # an explicit re-export
            obj = getattr(live, alias.name)
            if node.module is None:
                assert obj is importlib.import_module(f"{source}.{alias.name}")
                continue
            held = importlib.import_module(source)
            assert getattr(held, alias.name) is obj
            if source in TREES:
                assert alias.name in _static_all(TREES[source])


_KINDS = {
    "posonlyargs": inspect.Parameter.POSITIONAL_ONLY,
    "args": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "kwonlyargs": inspect.Parameter.KEYWORD_ONLY,
}


def _stub_parameters(node: ast.FunctionDef) -> list[tuple]:
    """(name, kind, default) of each parameter of a stub's function; the
    default is ``inspect.Parameter.empty`` where there is none."""
    args = node.args
    assert args.vararg is None and args.kwarg is None
    positional = [*args.posonlyargs, *args.args]
    defaults = [inspect.Parameter.empty] * (len(positional) - len(args.defaults))
    defaults += [ast.literal_eval(d) for d in args.defaults]
    rows = [
        (arg.arg, _KINDS["posonlyargs" if arg in args.posonlyargs else "args"], d)
        for arg, d in zip(positional, defaults, strict=True)
    ]
    rows += [
        (
            arg.arg,
            _KINDS["kwonlyargs"],
            inspect.Parameter.empty if d is None else ast.literal_eval(d),
        )
        for arg, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    return rows


@pytest.mark.parametrize(
    "module, node", FUNCTIONS, ids=[f"{m}.{n.name}" for m, n in FUNCTIONS]
)
def test_stub_signature_is_the_live_signature(module, node):
    # the stub's parameters, kinds and defaults are inspect.signature's of
    # the live function (defaults equal and of the same type: 0.0 is not 0);
    # every parameter and the return value are annotated
    live = getattr(importlib.import_module(module), node.name)
    expected = [
        (p.name, p.kind, p.default) for p in inspect.signature(live).parameters.values()
    ]
    got = _stub_parameters(node)
    assert got == expected
    assert [type(d) for *_, d in got] == [type(d) for *_, d in expected]
    args = [*node.args.args, *node.args.kwonlyargs]
    assert all(arg.annotation is not None for arg in args)
    assert node.returns is not None


def _literal_parameters():
    for module, node in FUNCTIONS:
        for arg in node.args.kwonlyargs:
            for sub in ast.walk(arg.annotation):
                if (
                    isinstance(sub, ast.Subscript)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == "Literal"
                ):
                    values = ast.literal_eval(sub.slice)
                    values = values if isinstance(values, tuple) else (values,)
                    yield module, node.name, arg.arg, values


LITERALS = list(_literal_parameters())


def test_literal_annotations_are_found():
    # ties, nonpositive, average and the metrics' own options (gain,
    # denominator...) of the *_score functions
    names = {param for _, _, param, _ in LITERALS}
    assert {"ties", "nonpositive", "average", "gain", "denominator"} <= names


@pytest.mark.parametrize(
    "module, function, param, values",
    LITERALS,
    ids=[f"{f}-{p}" for _, f, p, _ in LITERALS],
)
def test_literal_annotation_lists_the_options_the_function_accepts(
    module, function, param, values
):
    # the function's own error for an unknown option lists exactly the
    # strings of the stub's Literal, in its order
    func = getattr(importlib.import_module(module), function)
    listed = "a str among {" + ", ".join(repr(v) for v in values) + "}"
    with pytest.raises(ValueError, match="must be " + re.escape(listed)):
        func([[1, 0]], [[0.2, 0.1]], **{param: "not_an_option"})


def test_static_all_of_skrank_resolves_ndcg_score():
    # what a static tool reads for `from skrank import ndcg_score`: the name
    # is in skrank's static __all__, re-exported from skrank.metrics, whose
    # stub re-exports it from skrank.metrics.dcg, whose stub defines it with
    # every parameter of sklearn.metrics.ndcg_score (a strict drop-in)
    import sklearn.metrics

    assert "ndcg_score" in _static_all(TREES["skrank"])
    assert "ndcg_score" in _static_all(TREES["skrank.metrics"])
    (node,) = [n for m, n in FUNCTIONS if n.name == "ndcg_score"]
    names = [row[0] for row in _stub_parameters(node)]
    theirs = inspect.signature(sklearn.metrics.ndcg_score).parameters
    assert names[:2] == ["y_true", "y_score"]
    assert set(theirs) <= set(names)
