# ---- FSOC experiments (issue 6 part 5): build/steady-fsocexp ----------------
# The measurements behind `steady model` (python/steadyfs/fsocmodel.py):
# conventional vs FSOC traffic, media time and file-system CPU per operation.
# Built from the optimised host objects (not the sanitizer ones: it times
# CPU) and from the object list rather than libsteady.a, so the 9P server is
# linked whenever src/p9/p9srv*.c exist (the tool refers to it weakly).
$(BUILD)/steady-fsocexp: src/host/main/fsocexp_main.c $(LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(HOST_CFLAGS) $< $(LIB_OBJS) -o $@ -lm

tools: $(BUILD)/steady-fsocexp
