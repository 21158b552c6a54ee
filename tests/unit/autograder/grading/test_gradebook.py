"""shared_engines: nbgrader's Gradebook keeps working, on one engine per database for a run."""

import threading

import nbgrader.api
from nbgrader.api import Gradebook

from autograder.grading.gradebook import shared_engines


def test_nbgrader_uses_replaced_name():
    # If an nbgrader upgrade creates its engine some other way, the run silently loses the
    # shared engine; this says so instead.
    import inspect

    assert "create_engine(db_url" in inspect.getsource(Gradebook.__init__)
    assert nbgrader.api.create_engine.__module__.startswith("sqlalchemy")


def test_one_engine_outlives_close(tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with shared_engines() as engines:
        with Gradebook(url) as gb:
            gb.add_student("ada")
            first = gb.engine
        with Gradebook(url) as gb:  # the first one's close() did not dispose of the engine
            assert gb.engine is first
            assert [s.id for s in gb.students] == ["ada"]
        assert len(engines) == 1
    assert nbgrader.api.create_engine.__module__.startswith("sqlalchemy")  # put back
    with Gradebook(url) as gb:  # after the run: nbgrader's own engine per Gradebook again
        assert gb.engine is not first
        assert [s.id for s in gb.students] == ["ada"]


def test_two_databases_get_two_engines(tmp_path):
    with shared_engines() as engines:
        a = Gradebook(f"sqlite:///{tmp_path / 'a.db'}")
        b = Gradebook(f"sqlite:///{tmp_path / 'b.db'}")
        assert a.engine is not b.engine
        a.add_student("only_in_a")
        assert [s.id for s in b.students] == []
        a.close()
        b.close()
    assert len(engines) == 2


def test_threads_see_every_write(tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    errors = []

    def add(name):
        try:
            with Gradebook(url) as gb:
                gb.add_student(name)
        except Exception as error:  # noqa: BLE001 - collected for the assertion below
            errors.append(error)

    with shared_engines():
        Gradebook(url).close()  # the tables, once
        threads = [threading.Thread(target=add, args=(f"s{i}",)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with Gradebook(url) as gb:
            names = sorted(s.id for s in gb.students)
    assert errors == []
    assert names == [f"s{i}" for i in range(6)]
