# ---- 9P2000.L server (issue 6): src/p9/p9srv*.c, steady serve --------------
# The server itself is part of the freestanding core (src/p9 is in
# CORE_SRCS); this file adds its host program, fuzzer and tests.

# P9_SRCS (the codec tools' sources) must not pull in the server, which
# needs the file system; recipes expand it late, so this reaches them.
P9_SRCS := $(filter-out src/p9/p9srv%,$(P9_SRCS))

# The server's fuzzer: message sequences over a small simulated NAND.
FUZZERS += fuzz_p9srv

$(BUILD)/fuzz/p9srv_corpus_gen: tests/fuzz/p9srv_corpus_gen.c $(P9_SRCS)
	@mkdir -p $(@D)
	@$(CC) $(HOST_CFLAGS) $< $(P9_SRCS) -o $@

.PHONY: fuzz-corpus-p9srv
fuzz-corpus-p9srv: $(BUILD)/fuzz/p9srv_corpus_gen
	@mkdir -p tests/fuzz/corpus/fuzz_p9srv
	$(BUILD)/fuzz/p9srv_corpus_gen tests/fuzz/corpus/fuzz_p9srv
fuzz-corpus: fuzz-corpus-p9srv

# fuzz_p9srv gets coverage feedback from the server and the codec only: the
# file system and device model under it are built with the sanitizers but
# without coverage hooks (they have their own tests and torture), which
# makes each run several times faster and keeps the fuzzer on the server.
P9SRV_FUZZ_COV   := $(filter src/p9/%,$(CORE_SRCS))
P9SRV_FUZZ_NOCOV := $(filter-out src/p9/%,$(CORE_SRCS))
P9SRV_FUZZ_NOCOV_CFLAGS := $(CSTD) $(WARN) $(INC) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all

$(BUILD)/fuzz/nocov/%.o: %.c
	@mkdir -p $(@D)
	@$(CLANG) $(P9SRV_FUZZ_NOCOV_CFLAGS) -MMD -MP -c $< -o $@

# every header: a struct that changes size (sizeof(steadyfs)) must not meet
# objects built with the old one (they made the harness's mount fail)
$(patsubst %.c,$(BUILD)/fuzz/nocov/%.o,$(P9SRV_FUZZ_NOCOV)): $(wildcard include/steadyfs/*.h src/*/*.h)

$(BUILD)/fuzz/fuzz_p9srv: tests/fuzz/fuzz_p9srv.c $(P9SRV_FUZZ_COV) \
		$(patsubst %.c,$(BUILD)/fuzz/nocov/%.o,$(P9SRV_FUZZ_NOCOV)) $(wildcard include/steadyfs/*.h src/*/*.h)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	@$(CLANG) $(FUZZ_CFLAGS) $< $(P9SRV_FUZZ_COV) \
	    $(patsubst %.c,$(BUILD)/fuzz/nocov/%.o,$(P9SRV_FUZZ_NOCOV)) -o $@

# steady serve (build/steady-serve): the server on TCP, Unix sockets, stdio
# or a tty (framed).  Built with the sanitizers, like steady-torture, so the
# interop tests double as memory checks of the server.
$(BUILD)/steady-serve: src/host/main/serve_main.c $(SAN_OBJS)
	@mkdir -p $(@D)
	@echo "  LD/san  $@"
	@$(CC) $(SAN_CFLAGS) $< $(SAN_OBJS) -o $@ -lm

tools: $(BUILD)/steady-serve

# p9srv-size: the Cortex-M3 .text of a File System On Chip image: the
# server, the codec, the file system and the CRC linked together with
# newlib's mem*/str*, unused sections dropped (the block-device driver and
# the UART framing are the board's and not counted).
P9SRV_ARM_OBJS := $(filter $(BUILD)/arm/src/p9/p9srv% $(BUILD)/arm/src/p9/p9_% \
                    $(BUILD)/arm/src/fs/% $(BUILD)/arm/src/util/%,$(ARM_OBJS))

.PHONY: p9srv-size
p9srv-size: $(P9SRV_ARM_OBJS)
	@mkdir -p $(BUILD)/p9srv
	@$(ARM_CC) -mcpu=cortex-m3 -mthumb -nostartfiles -Wl,--gc-sections -Wl,-e,p9srv_handle \
	    -Wl,--undefined=p9srv_init -Wl,--undefined=p9srv_disconnect \
	    -Wl,--undefined=p9srv_msg_len -Wl,--undefined=p9srv_mem_size \
	    -Wl,--undefined=steadyfs_mount -Wl,--undefined=steadyfs_format \
	    -Wl,--undefined=steadyfs_unmount -Wl,--undefined=steadyfs_gc_step \
	    $(P9SRV_ARM_OBJS) -o $(BUILD)/p9srv/fsoc.elf
	@arm-none-eabi-size -t $(filter $(BUILD)/arm/src/p9/p9srv%,$(P9SRV_ARM_OBJS)) | tail -1 | \
	    awk '{printf "9P server alone (src/p9/p9srv*):                  .text %6d\n", $$1}'
	@arm-none-eabi-size $(BUILD)/p9srv/fsoc.elf | tail -1 | \
	    awk '{printf "server + codec + steadyfs + newlib, gc-sections: .text %6d\n", $$1}'
