# ---- host stub and FUSE mount (issue 6 part 3) ------------------------------
# The p9cli stub itself (src/stub/) is core: CORE_SRCS cross-builds it.
# build/steady-mount: the FUSE front end `steady mount` execs (libfuse3).
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS   := $(or $(shell pkg-config --libs fuse3 2>/dev/null),-lfuse3 -lpthread)

$(BUILD)/steady-mount: src/host/main/mount_main.c $(BUILD)/libsteady.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(HOST_CFLAGS) $(FUSE_CFLAGS) $< $(BUILD)/libsteady.a -o $@ $(FUSE_LIBS) -lm

tools: $(BUILD)/steady-mount

# stub-size: the Cortex-M3 .text a host MCU pays for the stub, linked with
# the 9P codec it uses and newlib's mem*/strlen, unused sections dropped.
STUB_ARM_OBJS := $(filter $(BUILD)/arm/src/stub/%,$(ARM_OBJS)) \
                 $(addprefix $(BUILD)/arm/src/p9/,p9_codec.o p9_dirent.o)

.PHONY: stub-size
stub-size: $(STUB_ARM_OBJS)
	@mkdir -p $(BUILD)/stub
	@api=$$(arm-none-eabi-nm -g --defined-only $(filter $(BUILD)/arm/src/stub/%,$(STUB_ARM_OBJS)) | \
	    awk '$$2=="T" && $$3 ~ /^p9cli_/ && $$3 !~ /^p9cli_(rpc|pump|send_msg|fid_|clunk|walk|lerror)/ {print "-Wl,--undefined=" $$3}'); \
	$(ARM_CC) -mcpu=cortex-m3 -mthumb -nostartfiles -Wl,--gc-sections -Wl,-e,p9cli_connect \
	    $$api $(STUB_ARM_OBJS) -o $(BUILD)/stub/p9cli.elf
	@arm-none-eabi-size -t $(filter $(BUILD)/arm/src/stub/%,$(STUB_ARM_OBJS)) | tail -1 | \
	    awk '{printf "p9cli stub alone (src/stub):                 .text %6d\n", $$1}'
	@arm-none-eabi-size $(BUILD)/stub/p9cli.elf | tail -1 | \
	    awk '{printf "linked with 9P codec + newlib mem*, gc-sections: .text %6d\n", $$1}'

# The stub's fuzzer: the fuzz input is the server's side of the stream.
# Linked with the stub and the codec only (coverage stays on them).
FUZZERS += fuzz_p9cli
P9CLI_FUZZ_SRCS := $(sort $(wildcard src/stub/*.c)) src/p9/p9_codec.c \
                   src/p9/p9_dirent.c

$(BUILD)/fuzz/fuzz_p9cli: tests/fuzz/fuzz_p9cli.c tests/fuzz/p9cli_script.h $(P9CLI_FUZZ_SRCS) \
		$(wildcard include/steadyfs/*.h src/stub/*.h)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	@$(CLANG) $(FUZZ_CFLAGS) $< $(P9CLI_FUZZ_SRCS) -o $@

# Seed: one real session recorded from p9srv (see the generator).
$(BUILD)/fuzz/p9cli_corpus_gen: tests/fuzz/p9cli_corpus_gen.c tests/fuzz/p9cli_script.h $(LIB_OBJS)
	@mkdir -p $(@D)
	@$(CC) $(HOST_CFLAGS) $< $(BUILD)/libsteady.a -o $@ -lm

.PHONY: fuzz-corpus-p9cli
fuzz-corpus-p9cli: $(BUILD)/fuzz/p9cli_corpus_gen $(BUILD)/libsteady.a
	@mkdir -p tests/fuzz/corpus/fuzz_p9cli
	$(BUILD)/fuzz/p9cli_corpus_gen tests/fuzz/corpus/fuzz_p9cli
fuzz-corpus: fuzz-corpus-p9cli
