# ---- Linux v9fs guest and diod interop (issue 6 part 4) --------------------
# The tests are tests/py/test_guest_v9fs.py (and its steady-serve half), so
# `make test` runs them in test-py already; adding them to TEST_EXTRA too
# would boot the guests twice.  `make test-guest` runs only them, verbosely,
# with the timings printed.
.PHONY: test-guest
test-guest: setup lib
	$(PY) -m pytest -q -s tests/py/test_guest_v9fs.py

# ---- other people's tools, long (issue 14 item 5): make soak-tools ----------
# stress-ng (every group for SOAK_TOOLS_STRESS_S s, then the stressors that
# must run alone) and dbench on a FUSE mount; then the three clients (two
# FUSE mounts and the v9fs guest) running fio, stress-ng and dbench rounds
# for SOAK_TOOLS_S s; fsck clean after each.  `make test` runs both files at
# short length.  docs/P9.md has the results.
SOAK_TOOLS_S ?= 600
SOAK_TOOLS_STRESS_S ?= 10
.PHONY: soak-tools
soak-tools: setup tools
	STEADYFS_TOOLS_STRESS_S=$(SOAK_TOOLS_STRESS_S) $(PY) -m pytest -q -s tests/py/test_tools_fuse.py
	STEADYFS_TOOLS_SECONDS=$(SOAK_TOOLS_S) STEADYFS_TOOLS_STRESS_S=$(SOAK_TOOLS_STRESS_S) \
	    STEADYFS_TOOLS_DBENCH_S=20 STEADYFS_TOOLS_FIO_SIZE=2m \
	    $(PY) -m pytest -q -s tests/py/test_tools_guest.py
