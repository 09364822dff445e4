# lorgen.mk - link a Make-built program in the order lorgen computes from a profile.
#
# Set these, then include this file after them:
#   LORGEN_PROFILE   the profile(s) lorgen reads (any format `lorgen formats` lists)
#   LORGEN_OBJS      the program's object files (built with -ffunction-sections)
#   LORGEN_LINKER    bfd (GNU ld, -T INSERT script; the default), gold or lld
#   LORGEN           the lorgen binary (default: lorgen on PATH)
#   LORGEN_FLAGS     more lorgen options (--cache-size 16K ...)
#   LORGEN_DIR       where the .LOR and the linker input go (default: .)
# It defines LORGEN_SCRIPT (the linker input, a prerequisite of your link rule) and
# LORGEN_LDFLAGS (add to the link command). Example:
#
#   LORGEN_PROFILE = app.prf
#   LORGEN_OBJS = $(OBJS)
#   include lorgen.mk
#   app: $(OBJS) $(LORGEN_SCRIPT)
#           $(CC) $(OBJS) $(LORGEN_LDFLAGS) -o $@
#
# The script is remade when a profile or an object changes, and the program relinks when the
# script changes. The .LOR next to it is the order for people to review (docs/lor-format.md).

# Including this file must not change the makefile's default goal.
lorgen_default_goal := $(.DEFAULT_GOAL)

LORGEN ?= lorgen
LORGEN_LINKER ?= bfd
LORGEN_DIR ?= .
LORGEN_LOR ?= $(LORGEN_DIR)/lorgen.lor

ifeq ($(LORGEN_LINKER),bfd)
LORGEN_SCRIPT := $(LORGEN_DIR)/lorgen-order.ld
LORGEN_OUTPUT := --ld-script $(LORGEN_SCRIPT)
LORGEN_LDFLAGS := -Wl,-T,$(LORGEN_SCRIPT)
else ifeq ($(LORGEN_LINKER),gold)
LORGEN_SCRIPT := $(LORGEN_DIR)/lorgen-order.gold
LORGEN_OUTPUT := --gold $(LORGEN_SCRIPT)
LORGEN_LDFLAGS := -fuse-ld=gold -Wl,--section-ordering-file,$(LORGEN_SCRIPT)
else ifeq ($(LORGEN_LINKER),lld)
LORGEN_SCRIPT := $(LORGEN_DIR)/lorgen-order.lld
LORGEN_OUTPUT := --lld $(LORGEN_SCRIPT)
LORGEN_LDFLAGS := -fuse-ld=lld -Wl,--symbol-ordering-file,$(LORGEN_SCRIPT)
else
$(error LORGEN_LINKER must be bfd, gold or lld, not $(LORGEN_LINKER))
endif

# lorgen writes its outputs whole or not at all, so a failed run leaves no half script behind.
$(LORGEN_SCRIPT): $(LORGEN_PROFILE) $(LORGEN_OBJS)
	$(LORGEN) -q $(LORGEN_FLAGS) $(LORGEN_PROFILE) $(LORGEN_OBJS) -o $(LORGEN_LOR) $(LORGEN_OUTPUT)

.DEFAULT_GOAL := $(lorgen_default_goal)
