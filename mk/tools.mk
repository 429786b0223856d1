# ---- host tools on image files and the image fuzzer (issue 4) -------------
# build/steady-img: mkfs, fsck, ls, cat, put, get, rm, mkdir, mv, image
# create/extract (src/host/main/img_main.c; `steady <cmd>` execs it).
# docs/TOOLS.md.
$(BUILD)/steady-img: src/host/main/img_main.c $(LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(HOST_CFLAGS) $< $(LIB_OBJS) -o $@ -lm

tools: $(BUILD)/steady-img

# fuzz_image: mutated small images through mount, fsck and every read path.
# Its seed corpus is made by tests/fuzz/image_corpus_gen.c (`make fuzz-image-corpus`).
FUZZERS += fuzz_image

$(BUILD)/fuzz/image_corpus_gen: tests/fuzz/image_corpus_gen.c tests/fuzz/fuzz_image_dev.h $(CORE_SRCS)
	@mkdir -p $(@D)
	@$(CC) $(HOST_CFLAGS) $< $(CORE_SRCS) -o $@

.PHONY: fuzz-image-corpus
fuzz-image-corpus: $(BUILD)/fuzz/image_corpus_gen
	@mkdir -p tests/fuzz/corpus/fuzz_image
	$(BUILD)/fuzz/image_corpus_gen tests/fuzz/corpus/fuzz_image

# Each input runs mount, a whole fsck and every read over a 2 MiB device.
# The device model and CRC (src/bd, src/util) are sanitized but not
# coverage-instrumented: they are the fuzzer's instrument, not its target,
# and their per-byte loops cost most of the run time otherwise (13 -> ~60
# runs/s).  The file system core and the harness are instrumented as usual.
FI_NOCOV_SRCS := $(sort $(wildcard src/util/*.c src/bd/*.c))
FI_NOCOV_OBJS := $(patsubst %.c,$(BUILD)/fuzz/nocov/%.o,$(FI_NOCOV_SRCS))
FI_NOCOV_CFLAGS := $(CSTD) $(WARN) $(INC) -g -O2 -fsanitize=address,undefined -fno-sanitize-recover=all

$(BUILD)/fuzz/nocov/%.o: %.c
	@mkdir -p $(@D)
	@$(CLANG) $(FI_NOCOV_CFLAGS) -c $< -o $@

$(FI_NOCOV_OBJS): $(wildcard include/steadyfs/*.h src/*/*.h)

$(BUILD)/fuzz/fuzz_image: tests/fuzz/fuzz_image.c tests/fuzz/fuzz_image_dev.h $(CORE_SRCS) \
                          $(FI_NOCOV_OBJS) $(wildcard include/steadyfs/*.h src/*/*.h)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	@$(CLANG) $(FUZZ_CFLAGS) -O2 $< $(filter-out $(FI_NOCOV_SRCS),$(CORE_SRCS)) $(FI_NOCOV_OBJS) -o $@
