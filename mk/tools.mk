# ---- host tools on image files and the image fuzzer (issue 4) -------------
# build/steady-img: mkfs, fsck, ls, cat, put, get, rm, mkdir, mv, image
# create/extract (src/host/main/img_main.c; `steady <cmd>` execs it).
# docs/TOOLS.md.
$(BUILD)/steady-img: src/host/main/img_main.c $(LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(HOST_CFLAGS) $< $(LIB_OBJS) -o $@ -lm

build: $(BUILD)/steady-img

# fuzz_image: mutated small images through mount, fsck and every read path.
# Its seed corpus is made by tests/fuzz/image_corpus_gen.c (`make fuzz-image-corpus`).
FUZZERS += fuzz_image

$(BUILD)/fuzz/image_corpus_gen: tests/fuzz/image_corpus_gen.c tests/fuzz/fuzz_image_dev.h $(CORE_SRCS)
	@mkdir -p $(@D)
	@$(CC) $(HOST_CFLAGS) $< $(CORE_SRCS) -o $@

$(BUILD)/fuzz/fuzz_image: tests/fuzz/fuzz_image_dev.h

.PHONY: fuzz-image-corpus
fuzz-image-corpus: $(BUILD)/fuzz/image_corpus_gen
	@mkdir -p tests/fuzz/corpus/fuzz_image
	$(BUILD)/fuzz/image_corpus_gen tests/fuzz/corpus/fuzz_image
