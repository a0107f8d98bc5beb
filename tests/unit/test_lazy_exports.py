"""pytest_visioneval.lazy_exports: a package's re-exported names load their module on first use, and only then."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

PACKAGES = ("cases", "graders", "judges", "models", "protocols")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_a_package_lists_is_there_and_is_its_modules_own(package: str) -> None:
    module = importlib.import_module(f"pytest_visioneval.{package}")
    for name in module.__all__:
        value = getattr(module, name)
        defined_in = importlib.import_module(module._EXPORTS[name], module.__name__)
        assert value is getattr(defined_in, name), name
        assert name in dir(module)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_name_it_does_not_export_is_an_attribute_error(package: str) -> None:
    module = importlib.import_module(f"pytest_visioneval.{package}")
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        module.not_a_name  # noqa: B018


def test_importing_one_module_of_a_package_loads_not_the_others() -> None:
    probe = (
        "import json, sys\n"
        "from pytest_visioneval.cases.spec import CaseSpec\n"
        "from pytest_visioneval.cases import TASKS\n"  # a re-exported name: loads its own module only
        "from pytest_visioneval.judges import JudgeSettings\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('pytest_visioneval.cases.', "
        "'pytest_visioneval.judges.', 'yaml')))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    loaded = json.loads(done.stdout)
    assert "pytest_visioneval.cases.loader" not in loaded and "yaml" not in loaded, loaded
    assert "pytest_visioneval.judges.client" not in loaded, loaded
    assert "pytest_visioneval.judges.settings" in loaded


def test_from_import_of_a_submodule_still_works() -> None:
    from pytest_visioneval.cases import loader

    assert loader.__name__ == "pytest_visioneval.cases.loader"
