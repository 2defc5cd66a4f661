# Makefile: builds libhcatrace.so, the examples, the tests and their tools.
# `make` builds into build/; `make check` runs all tests, then again with
# ASan+UBSan from build/san/; `make install` / `make uninstall` under PREFIX.

-include config.mk
ifeq ($(OTF2_LIBS),)
$(error config.mk is missing or incomplete: run ./configure first)
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
LIB_CFLAGS := $(BASE_CFLAGS) -fPIC -fvisibility=hidden $(INCLUDES) $(OTF2_CFLAGS) $(MPI_CFLAGS) $(DW_CFLAGS) \
    $(UNWIND_CFLAGS) $(PFM_CFLAGS)
LIB_LIBS := $(OTF2_LIBS) $(MPI_LIBS) $(DW_LIBS) $(UNWIND_LIBS) $(PFM_LIBS) -lpthread -ldl -lm

SRC_COMMON := src/hca_defs.c src/hca_archive.c src/hca_names.c
# the model language and model lookup: used by the tracer and hcafold
MODEL_SRC := src/hca_model.c src/hca_model_path.c
LIB_SRC := $(SRC_COMMON) $(MODEL_SRC) $(wildcard instrument/*.c)
LIB_OBJ := $(patsubst %.c,$(BUILD)/obj/lib/%.o,$(LIB_SRC))
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
# OpenMP: the cost of a parallel region
TOOLS += $(BUILD)/bench/omp_region_cost
# hcafold's reading side (fold/read, regions, points) and its test tools
FOLD_READ_SRC := fold/read.c fold/regions.c fold/points.c
FOLD_READ_OBJ := $(patsubst fold/%.c,$(BUILD)/obj/fold/%.o,$(FOLD_READ_SRC))
FOLD_TESTS := $(BUILD)/tests/test_read $(BUILD)/tests/test_regions $(BUILD)/tests/test_points
TOOLS += $(BUILD)/tests/hcasynth $(BUILD)/tests/foldstat $(BUILD)/tests/foldcheck $(BUILD)/tests/modelcheck

all: $(LIB) $(EXAMPLES) $(TOOLS) $(HCAFOLD)

$(BUILD)/obj/lib/%.o: %.c $(wildcard src/*.h instrument/*.h) config.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(LIB_CFLAGS) -c $< -o $@

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

TEST_CFLAGS := $(BASE_CFLAGS) $(INCLUDES) $(OTF2_CFLAGS) $(CMOCKA_CFLAGS)

$(BUILD)/tests/tracestat: tests/tracestat.c $(SRC_COMMON) $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -o $@ tests/tracestat.c $(SRC_COMMON) $(SAN_LDFLAGS) $(OTF2_LIBS)

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
$(BUILD)/bench/omp_region_cost: bench/omp_region_cost.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/bench/sample_cost: bench/sample_cost.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<

$(BUILD)/tests/test_bands: tests/unit/test_bands.c fold/bands.c fold/bands.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -Ifold -o $@ tests/unit/test_bands.c fold/bands.c $(SAN_LDFLAGS) $(CMOCKA_LIBS)

# ---- model language (issue 6): its unit test links the module directly ----
$(BUILD)/tests/test_model: tests/unit/test_model.c tests/unit/model_files.h $(MODEL_SRC) src/hca_model.h src/hca_model_path.h src/hca_names.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -o $@ tests/unit/test_model.c $(MODEL_SRC) src/hca_names.c $(SAN_LDFLAGS) $(CMOCKA_LIBS) $(PFM_LIBS) -lm
# ---- end model language ----

# Unit tests link the pure modules only (not the preload machinery, whose
# constructor would trace the test itself).
UNIT_OBJ := $(addprefix $(BUILD)/obj/lib/,src/hca_defs.o src/hca_names.o instrument/hct_config.o instrument/hct_expdir.o \
    instrument/hct_launcher.o instrument/hct_events.o)
$(BUILD)/tests/test_%: tests/unit/test_%.c $(UNIT_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -o $@ $< $(UNIT_OBJ) $(SAN_LDFLAGS) $(CMOCKA_LIBS) $(OTF2_LIBS) $(PFM_LIBS)

# ---- packing model events into counter sets: the pure module and the model language ----
MODEL_SETS_OBJ := $(addprefix $(BUILD)/obj/lib/,instrument/hct_model_sets.o src/hca_model.o)
$(BUILD)/tests/test_model_sets: tests/unit/test_model_sets.c tests/unit/model_files.h $(UNIT_OBJ) $(MODEL_SETS_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -o $@ $< $(MODEL_SETS_OBJ) $(UNIT_OBJ) $(SAN_LDFLAGS) $(CMOCKA_LIBS) $(OTF2_LIBS) $(PFM_LIBS) -lm

# The folding numerics (fit, segmentation) are pure functions on GSL: their
# unit tests link the sources directly (explicit targets, so this rule wins
# over the pattern rule above).
FOLD_NUM_SRC := fold/fit.c fold/segment.c
$(BUILD)/tests/test_fit $(BUILD)/tests/test_segment: $(BUILD)/tests/%: tests/unit/%.c $(FOLD_NUM_SRC) fold/fit.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -Ifold $(GSL_CFLAGS) -o $@ $< $(FOLD_NUM_SRC) $(SAN_LDFLAGS) $(CMOCKA_LIBS) $(GSL_LIBS)

# ---- hcafold reading side: objects, the trace synthesizer, test tools ----
FOLD_CFLAGS := $(BASE_CFLAGS) -Isrc -Ifold $(OTF2_CFLAGS)
FOLD_LIBS := $(OTF2_LIBS) -lpthread -lm

$(BUILD)/obj/fold/%.o: fold/%.c $(wildcard fold/*.h src/*.h) config.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(FOLD_CFLAGS) -c $< -o $@

SYNTH_SRC := tests/synth/hcasynth.c tests/synth/synth_spec.c
$(BUILD)/tests/hcasynth: $(SYNTH_SRC) $(wildcard tests/synth/*.h) $(SRC_COMMON) $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -Itests/synth -o $@ $(SYNTH_SRC) $(SRC_COMMON) $(SAN_LDFLAGS) $(OTF2_LIBS) -lm

$(BUILD)/tests/foldstat: tests/foldstat.c $(FOLD_READ_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -Ifold -o $@ $< $(FOLD_READ_OBJ) $(SAN_LDFLAGS) $(FOLD_LIBS)

# Unit tests of the reading side link its objects (and run hcasynth).
$(FOLD_TESTS): $(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/fold_testutil.h $(FOLD_READ_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -Ifold -Itests/synth -o $@ $< $(FOLD_READ_OBJ) $(SAN_LDFLAGS) $(CMOCKA_LIBS) $(FOLD_LIBS)

$(BUILD)/bench/mpi_call_cost: bench/mpi_call_cost.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -O2 -g -Wall -Wextra -Werror -o $@ $<

$(BUILD)/tests/modelcheck: tests/modelcheck.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -o $@ $< $(SAN_LDFLAGS) $(CJSON_LIBS) -lm

# the model's statistics (MAPE, Kendall's tau) and its application to a report
$(BUILD)/tests/test_fold_model: tests/unit/test_fold_model.c fold/model.c fold/model.h $(FOLD_READ_OBJ) \
    $(patsubst %.c,$(BUILD)/obj/lib/%.o,$(MODEL_SRC) src/hca_names.c)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -Ifold -o $@ tests/unit/test_fold_model.c fold/model.c $(FOLD_READ_OBJ) \
	    $(patsubst %.c,$(BUILD)/obj/lib/%.o,$(MODEL_SRC) src/hca_names.c) $(SAN_LDFLAGS) $(CMOCKA_LIBS) $(FOLD_LIBS)

$(BUILD)/tests/foldcheck: tests/foldcheck.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(TEST_CFLAGS) -o $@ $< $(SAN_LDFLAGS) $(CJSON_LIBS) -lm

# ---- hcafold: every fold/ module, GSL for the numerics, cJSON for fold.json ----
$(HCAFOLD): $(patsubst fold/%.c,$(BUILD)/obj/fold/%.o,$(wildcard fold/*.c)) $(BUILD)/obj/lib/src/hca_defs.o \
    $(patsubst %.c,$(BUILD)/obj/lib/%.o,$(MODEL_SRC) src/hca_names.c)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -o $@ $^ $(SAN_LDFLAGS) $(OTF2_LIBS) $(GSL_LIBS) $(CJSON_LIBS) -lpthread -lm

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

clean:
	rm -rf build

.PHONY: all check check-sanitized bench install uninstall lint tidy clean
