"""The typed stubs describe the compiled core exactly, and every part of it is documented."""

import ast
from pathlib import Path

import qchess
from qchess import _qchess

STUB = Path(qchess.__file__).with_name("_qchess.pyi")


def stub_classes():
    tree = ast.parse(STUB.read_text())
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def stub_members(cls):
    """Methods and properties by name, and annotated attributes with the docstring after them."""
    members = {}
    body = cls.body
    for index, node in enumerate(body):
        if isinstance(node, ast.FunctionDef):
            members[node.name] = ast.get_docstring(node)
        elif isinstance(node, ast.AnnAssign):
            following = body[index + 1] if index + 1 < len(body) else None
            is_doc = (
                isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            )
            members[node.target.id] = following.value.value if is_doc else None
    return members


def runtime_members(cls):
    return {name for name in vars(cls) if not name.startswith("_")}


def test_every_stub_class_exists_and_is_documented():
    for name, node in stub_classes().items():
        assert hasattr(_qchess, name), name
        assert ast.get_docstring(node), f"class {name} has no docstring in the stub"
        assert getattr(_qchess, name).__doc__, f"class {name} has no docstring at run time"


def test_stub_members_match_the_runtime_and_have_docstrings():
    for name, node in stub_classes().items():
        members = stub_members(node)
        runtime = getattr(_qchess, name)
        for member, doc in members.items():
            if member == "__init__" or member.startswith("_"):
                continue
            assert hasattr(runtime, member), f"{name}.{member} is in the stub but not in the package"
            assert doc, f"{name}.{member} has no docstring in the stub"
        missing = runtime_members(runtime) - set(members)
        assert not missing, f"{name} has members the stub leaves out: {sorted(missing)}"


def test_runtime_methods_carry_their_docs():
    for cls in (qchess.Game, qchess.Board, qchess.Move):
        for member in runtime_members(cls):
            assert getattr(cls, member).__doc__, f"{cls.__name__}.{member} has no docstring"


def test_package_functions_are_documented():
    for name in qchess.__all__:
        value = getattr(qchess, name)
        if callable(value):
            assert value.__doc__, name
