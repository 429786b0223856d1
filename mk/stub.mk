# ---- host stub and FUSE mount (issue 6 part 3) ------------------------------
# The p9cli stub itself (src/stub/) is core: CORE_SRCS cross-builds it.
# build/steady-mount: the FUSE front end `steady mount` execs (libfuse3).
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS   := $(or $(shell pkg-config --libs fuse3 2>/dev/null),-lfuse3 -lpthread)

$(BUILD)/steady-mount: src/host/main/mount_main.c $(BUILD)/libsteady.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(HOST_CFLAGS) $(FUSE_CFLAGS) $< $(BUILD)/libsteady.a -o $@ $(FUSE_LIBS) -lm

build: $(BUILD)/steady-mount
