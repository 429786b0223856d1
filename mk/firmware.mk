# ---- firmware 9P service (issue 7): the host relay, and the board's link to the server ----
# The board's firmware itself is built by the `firmware` rules in the Makefile.
# build/steady-relay: `steady firmware run --listen` runs it between TCP and
# QEMU's UART0 socket (src/host/main/relay_main.c, the same frame.c and
# p9link.c as the board).

RELAY_SRCS := src/util/crc32.c src/p9/cobs.c src/p9/frame.c src/p9/p9link.c
$(BUILD)/steady-relay: src/host/main/relay_main.c $(RELAY_SRCS) include/steadyfs/frame.h include/steadyfs/p9link.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	@$(CC) $(CSTD) $(WARN) $(INC) -O2 -g -D_GNU_SOURCE $< $(RELAY_SRCS) -o $@

tools: $(BUILD)/steady-relay
firmware: $(BUILD)/steady-relay

# `make test` prints the firmware's sizes with the stack high-water mark
# measured on the target during a short 9P session (~3 s).
.PHONY: firmware-size
firmware-size: firmware setup
	@./steady firmware size --measure
TEST_EXTRA += firmware-size

# The demo's firmware run (steady demo: firmware_check) needs the ELF and the
# relay; `make demo` builds them when the cross compiler is installed.
DEMO_FIRMWARE := $(if $(shell command -v $(ARM_CC) 2>/dev/null),firmware)

# The relay compiles clean with clang too.
$(BUILD)/clang/src/host/main/relay_main.o: CSTD += -D_GNU_SOURCE
clang-check: $(BUILD)/clang/src/host/main/relay_main.o

# The message/session layer under fuzzing (tests/fuzz/fuzz_p9link.c).
FUZZERS += fuzz_p9link
