# ---- Linux v9fs guest and diod interop (issue 6 part 4) --------------------
# The tests are tests/py/test_guest_v9fs.py (and its steady-serve half), so
# `make test` runs them in test-py already; adding them to TEST_EXTRA too
# would boot the guests twice.  `make test-guest` runs only them, verbosely,
# with the timings printed.
.PHONY: test-guest
test-guest: setup lib
	$(PY) -m pytest -q -s tests/py/test_guest_v9fs.py
