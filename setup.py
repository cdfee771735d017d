"""What pyproject.toml cannot say yet without an experimental table: strict graph matching's
loop in C. It is optional: where it cannot be built the package installs without it and
compares in Python, with the same results (docs/performance.md)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pytest_agenttraj.core.graph._names",
            ["pytest_agenttraj/core/graph/_names.c"],
            optional=True,
        )
    ]
)
