# Makefile: builds libhcatrace.so, the examples, the tests and their tools.
# `make` builds into build/; `make check` runs all tests, then again with
# ASan+UBSan from build/san/; `make install` / `make uninstall` under PREFIX.

# CONFIG: another configuration, e.g. a cross build's (scripts/cross-aarch64)
CONFIG ?= config.mk
-include $(CONFIG)
ifeq ($(OTF2_LIBS),)
$(error $(CONFIG) is missing or incomplete: run ./configure first)
endif

VERSION := 0.1.0
BUILD ?= build
SANITIZE ?= 0
DESTDIR ?=

WARN := -Wall -Wextra -Werror -Werror=incompatible-pointer-types -Wshadow -Wstrict-prototypes
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS_USER) -DHCATRACE_VERSION='"$(VERSION)"'
# where models are looked up by name (src/hca_model_path.c): installed, then this tree
MODEL_DIRS := -DHCA_MODELS_INSTALL_DIR='"$(PREFIX)/share/hcatrace/models"' -DHCA_MODELS_SOURCE_DIR='"$(CURDIR)/models"'
BASE_CFLAGS += $(MODEL_DIRS)
ifeq ($(SANITIZE),1)
BASE_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_LDFLAGS := -fsanitize=address,undefined
endif

INCLUDES := -Isrc -Iinstrument -Iinclude
# every object also writes its header dependencies (foo.d beside foo.o, included below)
DEPFLAGS := -MMD -MP
LIB_CFLAGS := $(BASE_CFLAGS) -fPIC -fvisibility=hidden $(INCLUDES) $(OTF2_CFLAGS) $(MPI_CFLAGS) $(DW_CFLAGS) \
    $(UNWIND_CFLAGS) $(PFM_CFLAGS)
LIB_LIBS := $(OTF2_LIBS) $(MPI_LIBS) $(DW_LIBS) $(UNWIND_LIBS) $(PFM_LIBS) -lpthread -ldl -lm

# objects of sources: src/ and instrument/ (PIC, for the library; also linked by tools and tests),
# fold/ (hcafold and its tests), tests/ (unit tests and test tools)
lib_obj = $(patsubst %.c,$(BUILD)/obj/lib/%.o,$(1))
fold_obj = $(patsubst fold/%.c,$(BUILD)/obj/fold/%.o,$(1))

SRC_COMMON := src/hca_defs.c src/hca_archive.c src/hca_names.c
# the schema's reading side: hcafold and the test tools
SCHEMA_READ_SRC := src/hca_schema_read.c
# the model language and model lookup: used by the tracer and hcafold
MODEL_SRC := src/hca_model.c src/hca_model_lex.c src/hca_model_parse.c src/hca_model_check.c src/hca_model_eval.c \
    src/hca_model_path.c
LIB_SRC := $(SRC_COMMON) $(MODEL_SRC) $(wildcard instrument/*.c)
LIB_OBJ := $(call lib_obj,$(LIB_SRC))
LIB := $(BUILD)/lib/libhcatrace.so

EXAMPLES := $(BUILD)/examples/mpi_phases $(BUILD)/examples/omp_free_serial
EXAMPLES += $(BUILD)/examples/omp_phases $(BUILD)/examples/mpi_omp_phases
ifneq ($(CLANG),)
EXAMPLES += $(BUILD)/examples/omp_phases_clang
endif
ifeq ($(MPIFC_OK),yes)
EXAMPLES += $(BUILD)/examples/mpi_ring
endif

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
HCAFOLD := $(BUILD)/bin/hcafold
TOOLS := $(BUILD)/tests/tracestat $(BUILD)/tests/markers_app $(BUILD)/bench/mpi_call_cost
# sampling and counters: a test program with known phases, and a benchmark
TOOLS += $(BUILD)/tests/sampling_app $(BUILD)/bench/sample_cost $(BUILD)/tests/fd_app
# known flat and stepped CPU rates: the folding skew (tests/e2e/fold_flat.sh, bench/skew.sh)
TOOLS += $(BUILD)/tests/flat_app
# an MPI program that records its own exact CPU time and page faults (tests/e2e/fold_truth.sh)
TOOLS += $(BUILD)/tests/truth_app
# OpenMP: the cost of a parallel region
TOOLS += $(BUILD)/bench/omp_region_cost
# hcafold's reading side (fold/read, regions, points) and its test tools
FOLD_READ_SRC := fold/read.c fold/read_archive.c fold/read_defs.c fold/read_events.c fold/read_pool.c \
    fold/regions.c fold/points.c
FOLD_READ_OBJ := $(call fold_obj,$(FOLD_READ_SRC)) $(call lib_obj,$(SCHEMA_READ_SRC))
TOOLS += $(BUILD)/tests/hcasynth $(BUILD)/tests/foldstat $(BUILD)/tests/foldcheck $(BUILD)/tests/modelcheck

all: $(LIB) $(EXAMPLES) $(TOOLS) $(HCAFOLD)

$(BUILD)/obj/lib/%.o: %.c $(BUILD)/obj/lib/%.d $(CONFIG)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(LIB_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -shared -o $@ $^ $(SAN_LDFLAGS) $(LIB_LIBS) -Wl,-soname,libhcatrace.so

# Examples are the user's programs: built without sanitizers, with -g.
$(BUILD)/examples/mpi_phases: examples/mpi_phases.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $< -lm
$(BUILD)/examples/mpi_ring: examples/mpi_ring.f90
	@mkdir -p $(dir $@)
	$(MPIFC) -g -O2 -Wall -J $(dir $@) -o $@ $<
$(BUILD)/examples/omp_phases: examples/omp_phases.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/examples/omp_phases_clang: examples/omp_phases.c
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/examples/mpi_omp_phases: examples/mpi_omp_phases.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/examples/omp_free_serial: examples/omp_free_serial.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -o $@ $< -lm

$(BUILD)/tests/markers_app: tests/markers_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<

# the user's programs: without sanitizers, with -g
$(BUILD)/tests/fd_app: tests/fd_app.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/sampling_app: tests/sampling_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $< -lpthread
$(BUILD)/tests/flat_app: tests/flat_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/tests/truth_app: tests/truth_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/bench/omp_region_cost: bench/omp_region_cost.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/bench/sample_cost: bench/sample_cost.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/bench/mpi_call_cost: bench/mpi_call_cost.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -O2 -g -Wall -Wextra -Werror -o $@ $<

# ---- hcafold: every fold/ module, GSL for the numerics, cJSON for fold.json ----
FOLD_CFLAGS := $(BASE_CFLAGS) -Isrc -Ifold $(OTF2_CFLAGS) $(GSL_CFLAGS) $(CJSON_CFLAGS)
FOLD_LIBS := $(OTF2_LIBS) $(GSL_LIBS) $(CJSON_LIBS) -lpthread -lm

$(BUILD)/obj/fold/%.o: fold/%.c $(BUILD)/obj/fold/%.d $(CONFIG)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(FOLD_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(HCAFOLD): $(call fold_obj,$(wildcard fold/*.c)) \
    $(call lib_obj,src/hca_defs.c src/hca_names.c $(SCHEMA_READ_SRC) $(MODEL_SRC))
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -o $@ $^ $(SAN_LDFLAGS) $(FOLD_LIBS)

# ---- tests: objects of tests/, the test tools, the unit tests ----
TEST_CFLAGS := $(BASE_CFLAGS) $(INCLUDES) -Ifold -Itests/synth $(OTF2_CFLAGS) $(CMOCKA_CFLAGS) $(GSL_CFLAGS) \
    $(CJSON_CFLAGS)
TEST_LIBS := $(OTF2_LIBS) $(CMOCKA_LIBS) $(PFM_LIBS) $(GSL_LIBS) $(CJSON_LIBS) -lpthread -lm

$(BUILD)/obj/tests/%.o: tests/%.c $(BUILD)/obj/tests/%.d $(CONFIG)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(TEST_CFLAGS) $(DEPFLAGS) -c $< -o $@

# Test tools: their own object and the objects listed on their line.
TEST_TOOLS := $(BUILD)/tests/tracestat $(BUILD)/tests/hcasynth $(BUILD)/tests/foldstat $(BUILD)/tests/foldcheck \
    $(BUILD)/tests/modelcheck
$(BUILD)/tests/tracestat: $(BUILD)/obj/tests/tracestat.o $(call lib_obj,$(SRC_COMMON) $(SCHEMA_READ_SRC))
$(BUILD)/tests/hcasynth: $(BUILD)/obj/tests/synth/hcasynth.o $(BUILD)/obj/tests/synth/synth_spec.o \
    $(call lib_obj,$(SRC_COMMON))
$(BUILD)/tests/foldstat: $(BUILD)/obj/tests/foldstat.o $(FOLD_READ_OBJ)
$(BUILD)/tests/foldcheck: $(BUILD)/obj/tests/foldcheck.o
$(BUILD)/tests/modelcheck: $(BUILD)/obj/tests/modelcheck.o
$(TEST_TOOLS):
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -o $@ $^ $(SAN_LDFLAGS) $(TEST_LIBS)

# Unit tests (cmocka): one link rule; each test's own object comes from the
# pattern, the modules it links are listed on its line. They link pure modules
# only (not the preload machinery, whose constructor would trace the test itself).
UNIT_OBJ := $(call lib_obj,src/hca_defs.c src/hca_names.c instrument/hct_config.c instrument/hct_expdir.c \
    instrument/hct_launcher.c instrument/hct_events.c)
MODEL_OBJ := $(call lib_obj,$(MODEL_SRC) src/hca_names.c)
$(BUILD)/tests/test_config $(BUILD)/tests/test_defs $(BUILD)/tests/test_events: $(UNIT_OBJ)
$(BUILD)/tests/test_ring $(BUILD)/tests/test_sampling_config: $(UNIT_OBJ)
$(BUILD)/tests/test_model: $(MODEL_OBJ)
$(BUILD)/tests/test_model_sets: $(call lib_obj,instrument/hct_model_sets.c) $(MODEL_OBJ) $(UNIT_OBJ)
$(BUILD)/tests/test_bands: $(call fold_obj,fold/bands.c)
$(BUILD)/tests/test_fit $(BUILD)/tests/test_segment: $(call fold_obj,fold/fit.c fold/segment.c)
$(BUILD)/tests/test_read $(BUILD)/tests/test_regions $(BUILD)/tests/test_points: $(FOLD_READ_OBJ)
$(BUILD)/tests/test_schema_roundtrip: $(FOLD_READ_OBJ)
$(BUILD)/tests/test_fold_model: $(call fold_obj,fold/model.c) $(FOLD_READ_OBJ) $(MODEL_OBJ)
# the tests' own objects are kept (not deleted as intermediate files)
.SECONDARY: $(patsubst tests/unit/%.c,$(BUILD)/obj/tests/unit/%.o,$(UNIT_SRC))
$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -o $@ $^ $(SAN_LDFLAGS) $(TEST_LIBS)

# header dependencies written by -MMD (none before the first build)
# An object without its dependency file (built before -MMD, or the .d lost) is
# rebuilt: each .d is a prerequisite of its object, a target without a recipe.
DEPFILES := $(patsubst %.c,$(BUILD)/obj/lib/%.d,$(LIB_SRC) $(SCHEMA_READ_SRC)) \
    $(patsubst fold/%.c,$(BUILD)/obj/fold/%.d,$(wildcard fold/*.c)) \
    $(patsubst tests/%.c,$(BUILD)/obj/tests/%.d,$(wildcard tests/*.c tests/*/*.c))
$(DEPFILES):
-include $(wildcard $(DEPFILES))

check: all $(UNIT_BIN)
	BUILD=$(BUILD) MPIRUN=$(MPIRUN) LIBOMP=$(LIBOMP) tests/run-tests.sh
	$(MAKE) BUILD=build/san SANITIZE=1 check-sanitized

check-sanitized: all $(UNIT_BIN)
	BUILD=$(BUILD) MPIRUN=$(MPIRUN) LIBOMP=$(LIBOMP) SANITIZED=1 tests/run-tests.sh

bench: all
	bench/run.sh
	bench/sampling.sh
	bench/counters.sh
	bench/overhead.sh
	bench/openmp.sh

install: $(LIB) $(HCAFOLD)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/doc/hcatrace \
	    $(DESTDIR)$(PREFIX)/share/hcatrace/examples $(DESTDIR)$(PREFIX)/share/hcatrace/models
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libhcatrace.so
	install -m 755 scripts/hcatrace $(DESTDIR)$(PREFIX)/bin/hcatrace
	install -m 755 $(HCAFOLD) $(DESTDIR)$(PREFIX)/bin/hcafold
	install -m 644 man/hcatrace.1 man/hcafold.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 include/hcatrace.h $(DESTDIR)$(PREFIX)/include/hcatrace.h
	install -m 644 docs/*.md README.md $(DESTDIR)$(PREFIX)/share/doc/hcatrace/
	install -m 644 examples/*.c examples/*.f90 examples/*.sh $(DESTDIR)$(PREFIX)/share/hcatrace/examples/
	install -m 644 models/*.model models/README.md $(DESTDIR)$(PREFIX)/share/hcatrace/models/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libhcatrace.so $(DESTDIR)$(PREFIX)/bin/hcatrace $(DESTDIR)$(PREFIX)/bin/hcafold \
	    $(DESTDIR)$(PREFIX)/share/man/man1/hcatrace.1 $(DESTDIR)$(PREFIX)/share/man/man1/hcafold.1 \
	    $(DESTDIR)$(PREFIX)/include/hcatrace.h
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/hcatrace $(DESTDIR)$(PREFIX)/share/hcatrace

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
	    --inline-suppr --suppress=missingIncludeSystem --language=c --std=c11 \
	    -U__cplusplus -DOMPI_SKIP_MPICXX=1 $(INCLUDES) -Ifold src instrument fold tests examples bench

TIDY_SRC := $(wildcard src/*.c instrument/*.c fold/*.c) tests/tracestat.c
tidy:
	@for f in $(TIDY_SRC); do \
	    clang-tidy --quiet $$f -- -std=c11 -D_GNU_SOURCE -DHCATRACE_VERSION='"$(VERSION)"' $(INCLUDES) \
	        $(OTF2_CFLAGS) $(MPI_CFLAGS) $(DW_CFLAGS) $(UNWIND_CFLAGS) $(PFM_CFLAGS) $(GSL_CFLAGS) || exit 1; \
	done

# the unit test programs (scripts/cross-aarch64 builds and runs them)
print-unit-bins:
	@echo $(UNIT_BIN)

clean:
	rm -rf build

.PHONY: all check check-sanitized bench install uninstall lint tidy clean print-unit-bins
