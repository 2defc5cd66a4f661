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
# installation directories (configure --prefix, --bindir, --libdir, ...; older config.mk files lack them)
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATAROOTDIR ?= $(PREFIX)/share
MANDIR ?= $(DATAROOTDIR)/man
SANITIZE ?= 0
DESTDIR ?=

WARN := -Wall -Wextra -Werror -Werror=incompatible-pointer-types -Wshadow -Wstrict-prototypes
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS_USER) -DHCATRACE_VERSION='"$(VERSION)"'
# where models are looked up by name (src/hca_model_path.c): installed, then this tree
MODEL_DIRS := -DHCA_MODELS_INSTALL_DIR='"$(DATAROOTDIR)/hcatrace/models"' -DHCA_MODELS_SOURCE_DIR='"$(CURDIR)/models"'
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
# libpfm4 is not linked: dlopened while the counters are set up (instrument/hct_pfm.h)
LIB_LIBS := $(OTF2_LIBS) $(MPI_LIBS) $(DW_LIBS) $(UNWIND_LIBS) -lpthread -ldl -lm

# objects of sources: src/ and instrument/ (PIC, for the library; also linked by tools and tests),
# fold/ (hcafold and its tests), tests/ (unit tests and test tools)
lib_obj = $(patsubst %.c,$(BUILD)/obj/lib/%.o,$(1))
fold_obj = $(patsubst fold/%.c,$(BUILD)/obj/fold/%.o,$(1))

SRC_COMMON := src/hca_defs.c src/hca_archive.c src/hca_names.c src/hca_partial.c src/hca_journal.c \
    src/hca_source_path.c
# the schema's reading side: hcafold and the test tools
SCHEMA_READ_SRC := src/hca_schema_read.c
# rebuilding a trace after an abnormal end (hcafold)
RECOVER_SRC := src/hca_recover.c src/hca_partial.c src/hca_journal.c src/hca_archive.c
# the model language and model lookup: used by the tracer and hcafold
MODEL_SRC := src/hca_model.c src/hca_model_lex.c src/hca_model_parse.c src/hca_model_check.c src/hca_model_eval.c \
    src/hca_model_path.c
LIB_SRC := $(SRC_COMMON) $(MODEL_SRC) $(wildcard instrument/*.c)
LIB_OBJ := $(call lib_obj,$(LIB_SRC))
LIB := $(BUILD)/lib/libhcatrace.so

EXAMPLES := $(BUILD)/examples/mpi_phases $(BUILD)/examples/omp_free_serial
EXAMPLES += $(BUILD)/examples/omp_phases $(BUILD)/examples/mpi_omp_phases $(BUILD)/examples/halo3d
ifneq ($(CLANG),)
EXAMPLES += $(BUILD)/examples/omp_phases_clang
endif
ifeq ($(MPIFC_OK),yes)
EXAMPLES += $(BUILD)/examples/mpi_ring
endif

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
ifeq ($(CMOCKA_OK),no) # configure found no cmocka: no unit tests (run-tests.sh says they are skipped)
UNIT_BIN :=
endif
HCAFOLD := $(BUILD)/bin/hcafold
TOOLS := $(BUILD)/tests/tracestat $(BUILD)/tests/markers_app $(BUILD)/bench/mpi_call_cost
# two threads handing CPU 0 to each other: a context switch's cost (bench/switch_cost.sh)
TOOLS += $(BUILD)/bench/switch_cost
# what the traced process has mapped and its peak RSS (tests/e2e/memory.sh)
TOOLS += $(BUILD)/tests/maps_app
# sampling and counters: a test program with known phases, and a benchmark
TOOLS += $(BUILD)/tests/sampling_app $(BUILD)/bench/sample_cost $(BUILD)/tests/fd_app
# known CPU time, page faults and context switches per region on two threads (tests/e2e/counter_source.sh)
TOOLS += $(BUILD)/tests/source_app
# abnormal ends of an MPI job (tests/e2e/survive.sh)
TOOLS += $(BUILD)/tests/fault_app
# a rank that reaches MPI_Finalize late (tests/e2e/quiet_end.sh)
TOOLS += $(BUILD)/tests/late_rank_app
# known flat and stepped CPU rates: the folding skew (tests/e2e/fold_flat.sh, bench/skew.sh)
TOOLS += $(BUILD)/tests/flat_app
# a program that blocks SIGPROF while it runs: late wall-clock signals (tests/e2e/late_samples.sh)
TOOLS += $(BUILD)/tests/masked_app
# how glibc's malloc serves large blocks, traced and not (tests/e2e/malloc_state.sh)
TOOLS += $(BUILD)/tests/malloc_app
# many tiny OpenMP critical sections and user regions: thinning (tests/e2e/thin.sh)
TOOLS += $(BUILD)/tests/thin_app
TOOLS += $(BUILD)/tests/par_thin_app
TOOLS += $(BUILD)/tests/fork_path_app
# MPI calls from one site under several callers: their call paths (tests/e2e/mpi_paths.sh)
TOOLS += $(BUILD)/tests/mpi_path_app
TOOLS += $(BUILD)/tests/thin_counters_app
# OpenMP workers that wait in the runtime's pool between regions: not sampled there (tests/e2e/openmp.sh)
TOOLS += $(BUILD)/tests/pool_app
# two parallel regions forked from one inlined function: their contexts (tests/e2e/openmp.sh)
TOOLS += $(BUILD)/tests/fork_chain_app
# a user region from 16 call sites: the first instance of each (tests/e2e/first_instance.sh)
TOOLS += $(BUILD)/tests/sites_app
# OpenMP threads that wait at a barrier for a thread inside the tracer (tests/e2e/openmp_wait.sh)
TOOLS += $(BUILD)/tests/omp_wait_app
# a thread held between a deferred sample's clock reading and its signal (tests/e2e/openmp_wait.sh)
TOOLS += $(BUILD)/tests/hold_gettid.so
# C++ with inlined call paths and aliased library names (tests/e2e/inline.sh), where there is a C++ compiler
ifneq ($(shell command -v $(CXX) 2>/dev/null),)
TOOLS += $(BUILD)/tests/inline_app
endif
# Fortran module procedures and OpenMP loops: their names (tests/e2e/fortran_names.sh)
ifeq ($(MPIFC_OK),yes)
TOOLS += $(BUILD)/tests/fortran_app
endif
# bursts of about 100 us between MPI calls: the tracer's own time (tests/e2e/fold_bursts.sh)
TOOLS += $(BUILD)/tests/burst_app
# MPI calls from a loop's site and from one followed by a long burst: which leaves read (tests/e2e/mpi_leave_reads.sh)
TOOLS += $(BUILD)/tests/burst_loop_app
ifeq ($(MPIFC_OK),yes)
TOOLS += $(BUILD)/tests/burst_app_f
endif
# a conjugate-gradient solver's shape: one MPI_Allreduce for every dot product,
# a halo exchange that unpacks after its MPI_Waitall, OpenMP loops; in Fortran, one
# MPI_Allreduce reached from two lines of a module procedure (tests/e2e/fold_cg.sh)
TOOLS += $(BUILD)/tests/cg_app
ifeq ($(MPIFC_OK),yes)
TOOLS += $(BUILD)/tests/cg_app_f
endif
# an MPI program that records its own exact CPU time and page faults (tests/e2e/fold_truth.sh)
TOOLS += $(BUILD)/tests/truth_app
# a hydrodynamics time step's stages recording their own boundaries (tests/e2e/fold_stages.sh)
TOOLS += $(BUILD)/tests/stages_app
# OpenMP: the cost of a parallel region
TOOLS += $(BUILD)/bench/omp_region_cost
# hcafold's reading side (fold/read, regions, points) and its test tools
FOLD_READ_SRC := fold/read.c fold/read_archive.c fold/read_defs.c fold/read_events.c fold/read_pool.c \
    fold/regions.c fold/sites.c fold/paths.c fold/anchor.c fold/forks.c fold/points.c
FOLD_READ_OBJ := $(call fold_obj,$(FOLD_READ_SRC)) $(call lib_obj,$(SCHEMA_READ_SRC))
TOOLS += $(BUILD)/tests/hcasynth $(BUILD)/tests/foldstat $(BUILD)/tests/foldcheck $(BUILD)/tests/modelcheck

# hcatrace --list-events: the events this machine records (installed in LIBDIR/hcatrace/)
LIST_EVENTS := $(BUILD)/lib/hcatrace/list-events

all: $(LIB) $(EXAMPLES) $(TOOLS) $(HCAFOLD) $(LIST_EVENTS)

$(BUILD)/obj/lib/%.o: %.c $(BUILD)/obj/lib/%.d $(CONFIG)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(LIB_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -shared -o $@ $^ $(SAN_LDFLAGS) $(LIB_LIBS) -Wl,-soname,libhcatrace.so

$(LIST_EVENTS): $(call lib_obj,src/hcatrace_list_events.c instrument/hct_events.c instrument/hct_pfm.c src/hca_names.c)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -o $@ $^ $(SAN_LDFLAGS) $(PFM_LIBS)

# Examples are the user's programs: built without sanitizers, with -g.
$(BUILD)/examples/mpi_phases: examples/mpi_phases.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $< -lm
$(BUILD)/examples/mpi_ring: examples/mpi_ring.f90
	@mkdir -p $(dir $@)
	$(MPIFC) -g -O2 -Wall -J $(dir $@) -o $@ $<
$(BUILD)/tests/fortran_app: tests/fortran_app.f90
	@mkdir -p $(dir $@)
	$(MPIFC) -g -O2 -fopenmp -Wall -J $(dir $@) -o $@ $<
$(BUILD)/examples/omp_phases: examples/omp_phases.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/examples/omp_phases_clang: examples/omp_phases.c
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/examples/mpi_omp_phases: examples/mpi_omp_phases.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/examples/halo3d: examples/halo3d.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $< -lm
$(BUILD)/examples/omp_free_serial: examples/omp_free_serial.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -o $@ $< -lm

$(BUILD)/tests/markers_app: tests/markers_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<

$(BUILD)/tests/masked_app: tests/masked_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<

$(BUILD)/tests/malloc_app: tests/malloc_app.c tests/malloc_probe.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<

$(BUILD)/tests/maps_app: tests/maps_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<

# the user's programs: without sanitizers, with -g
$(BUILD)/tests/fd_app: tests/fd_app.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/source_app: tests/source_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $< -lpthread

$(BUILD)/tests/sampling_app: tests/sampling_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $< -lpthread
$(BUILD)/tests/thin_app: tests/thin_app.c tests/work_2ms.h include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/tests/thin_counters_app: tests/thin_counters_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/tests/par_thin_app: tests/par_thin_app.c tests/work_2ms.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/fork_path_app: tests/fork_path_app.c tests/work_2ms.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/fork_chain_app: tests/fork_chain_app.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/pool_app: tests/pool_app.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/sites_app: tests/sites_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/tests/omp_wait_app: tests/omp_wait_app.c tests/chain_work.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/hold_gettid.so: tests/hold_gettid.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -shared -fPIC -Wall -Wextra -Werror -o $@ $< -ldl
$(BUILD)/tests/flat_app: tests/flat_app.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/tests/inline_app: tests/inline_app.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++11 -g -O2 -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/truth_app: tests/truth_app.c tests/chain_work.h include/hcatrace.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/tests/stages_app: tests/stages_app.c tests/chain_work.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/bench/omp_region_cost: bench/omp_region_cost.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/bench/sample_cost: bench/sample_cost.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<
$(BUILD)/tests/mpi_path_app: tests/mpi_path_app.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/fault_app: tests/fault_app.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/late_rank_app: tests/late_rank_app.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/burst_app: tests/burst_app.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/burst_loop_app: tests/burst_loop_app.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/cg_app: tests/cg_app.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -g -O2 -fopenmp -Wall -Wextra -Werror -o $@ $<
$(BUILD)/tests/cg_app_f: tests/cg_app.f90
	@mkdir -p $(dir $@)
	$(MPIFC) -g -O2 -fno-inline -fopenmp -Wall -J $(dir $@) -o $@ $<
$(BUILD)/tests/burst_app_f: tests/burst_app.f90
	@mkdir -p $(dir $@)
	$(MPIFC) -g -O2 -fno-inline -Wall -J $(dir $@) -o $@ $<
$(BUILD)/bench/switch_cost: bench/switch_cost.c include/hcatrace.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -g -O2 -Wall -Wextra -Werror -Iinclude -o $@ $< -lpthread

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
    $(call lib_obj,src/hca_defs.c src/hca_names.c src/hca_source_path.c $(SCHEMA_READ_SRC) $(MODEL_SRC) $(RECOVER_SRC) \
    instrument/hct_filter.c)
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
    instrument/hct_launcher.c instrument/hct_events.c instrument/hct_pfm.c instrument/hct_filter.c instrument/hct_thin_keys.c)
MODEL_OBJ := $(call lib_obj,$(MODEL_SRC) src/hca_names.c)
$(BUILD)/tests/test_config $(BUILD)/tests/test_defs $(BUILD)/tests/test_events: $(UNIT_OBJ)
$(BUILD)/tests/test_ring $(BUILD)/tests/test_sampling_config $(BUILD)/tests/test_thin: $(UNIT_OBJ)
$(BUILD)/tests/test_journal: $(UNIT_OBJ) $(call lib_obj,src/hca_journal.c src/hca_partial.c)
$(BUILD)/tests/test_model: $(MODEL_OBJ)
# a thread's calling context against a model tree (the test stands in for hct_callsite.c)
$(BUILD)/tests/test_path: $(call lib_obj,instrument/hct_path.c instrument/hct_self.c instrument/hct_path_memo.c)
$(BUILD)/tests/test_path: TEST_LIBS += $(UNWIND_LIBS)
# the call path cached at a recurring site, checked against other callers
# the cheap clock of kept-back instances against the monotonic one
$(BUILD)/tests/test_ticks: $(call lib_obj,instrument/hct_ticks.c)
$(BUILD)/tests/test_path_cache: $(call lib_obj,instrument/hct_path_cache.c)
$(BUILD)/tests/test_path_cache: TEST_LIBS += $(UNWIND_LIBS)
# libstdc++ loaded as in every C++ program: its demangler
$(BUILD)/tests/test_symbol_names: $(call lib_obj,instrument/hct_symbol_names.c)
$(BUILD)/tests/test_symbol_names: TEST_LIBS += -lstdc++ -ldl
# the index of function scopes against libdw's walk, on this test and tests/inline_app
$(BUILD)/tests/test_scope_index: $(call lib_obj,instrument/hct_scope_index.c) $(call lib_obj,instrument/hct_cu_units.c)
$(BUILD)/tests/test_scope_index: TEST_LIBS += $(DW_LIBS)
# the compact copies of line tables against libdw's, on this test and tests/inline_app
$(BUILD)/tests/test_line_tables: $(call lib_obj,instrument/hct_line_tables.c) $(call lib_obj,instrument/hct_cu_units.c)
$(BUILD)/tests/test_line_tables: TEST_LIBS += $(DW_LIBS)
# the find_debuginfo callback against libdw's standard one, on this test's modules
$(BUILD)/tests/test_symbol_table: $(call lib_obj,instrument/hct_symbol_table.c)
$(BUILD)/tests/test_symbol_table: TEST_LIBS += $(DW_LIBS) -ldl

$(BUILD)/tests/test_debuginfo: $(call lib_obj,instrument/hct_debuginfo.c)
$(BUILD)/tests/test_debuginfo: TEST_LIBS += $(DW_LIBS) -ldl
# the resident pages of mapped files given back (hct_symbolizer_release_pages)
$(BUILD)/tests/test_image_pages: $(call lib_obj,instrument/hct_image_pages.c instrument/hct_maps_line.c)
# the node's shared table of symbolized addresses, threads and processes; code files
$(BUILD)/tests/test_node_symbols: $(call lib_obj,instrument/hct_node_symbols.c instrument/hct_code_files.c instrument/hct_maps_line.c)
# an OpenMP team's arrivals at its barriers, a slot per thread, read by threads leaving
$(BUILD)/tests/test_omp_arrivals: $(call lib_obj,instrument/hct_omp_arrivals.c)
# which thread of a team is marked waiting at its barriers and ends (the test stands in for hct_sampling.c)
$(BUILD)/tests/test_omp_sync: $(call lib_obj,instrument/hct_omp_sync.c instrument/hct_omp_arrivals.c)
# a buffer's pages populated a step ahead of its writer (the sample buffers)
$(BUILD)/tests/test_prefault: $(call lib_obj,instrument/hct_prefault.c)
# a thread's stack pages below its frame given back (the frames worker's)
$(BUILD)/tests/test_stack_pages: $(call lib_obj,instrument/hct_stack_pages.c)
# OTF2's files written without its file buffer, against OTF2 as it is; the event budget
$(BUILD)/tests/test_otf2_direct: $(call lib_obj,instrument/hct_otf2_direct.c instrument/hct_buffers.c)
$(BUILD)/tests/test_model_sets: $(call lib_obj,instrument/hct_model_sets.c) $(MODEL_OBJ) $(UNIT_OBJ)
$(BUILD)/tests/test_bands: $(call fold_obj,fold/bands.c)
$(BUILD)/tests/test_units: $(call fold_obj,fold/units.c)
$(BUILD)/tests/test_source_path: $(call lib_obj,src/hca_source_path.c)
$(BUILD)/tests/test_sources: $(call fold_obj,fold/sources.c) $(call lib_obj,src/hca_source_path.c)
$(BUILD)/tests/test_html_svg: $(call fold_obj,fold/html_svg.c fold/outdir.c)
$(BUILD)/tests/test_anchor: $(call fold_obj,fold/anchor.c)
$(BUILD)/tests/test_forks: $(call fold_obj,fold/forks.c)
$(BUILD)/tests/test_code_paths: $(call fold_obj,fold/paths.c fold/anchor.c)
$(BUILD)/tests/test_fit $(BUILD)/tests/test_segment: $(call fold_obj,fold/fit.c fold/band.c fold/segment.c)
$(BUILD)/tests/test_read $(BUILD)/tests/test_regions $(BUILD)/tests/test_points: $(FOLD_READ_OBJ)
$(BUILD)/tests/test_schema_roundtrip: $(FOLD_READ_OBJ)
$(BUILD)/tests/test_runstats: $(call fold_obj,fold/runstats.c) $(FOLD_READ_OBJ)
$(BUILD)/tests/test_fold_model: $(call fold_obj,fold/model.c) $(FOLD_READ_OBJ) $(MODEL_OBJ)
# the tests' own objects are kept (not deleted as intermediate files)
.SECONDARY: $(patsubst tests/unit/%.c,$(BUILD)/obj/tests/unit/%.o,$(UNIT_SRC))
$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -o $@ $^ $(SAN_LDFLAGS) $(TEST_LIBS)

# ---- fuzzing (make fuzz): libFuzzer targets of the model parser, the tracer's
# configuration parser and hcafold's trace reading, with clang; each run for FUZZ_RUNS
# (trace reading: FUZZ_TRACE_RUNS) inputs from its seed corpus (build/fuzz/<target>.corpus,
# which libFuzzer grows); longer runs: make fuzz FUZZ_RUNS=... (docs/benchmarks.md) ----
FUZZ_RUNS ?= 5000
FUZZ_TRACE_RUNS ?= 500 # an OTF2 archive opened per input: about 10 inputs/s
FUZZ := $(BUILD)/fuzz
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -DHCATRACE_VERSION='"$(VERSION)"' $(MODEL_DIRS) $(INCLUDES) -Ifold $(OTF2_CFLAGS)
$(FUZZ)/fuzz_model: tests/fuzz/fuzz_model.c $(MODEL_SRC) src/hca_names.c
$(FUZZ)/fuzz_config: tests/fuzz/fuzz_config.c instrument/hct_config.c src/hca_names.c
$(FUZZ)/fuzz_trace: tests/fuzz/fuzz_trace.c $(FOLD_READ_SRC) $(SCHEMA_READ_SRC) src/hca_defs.c src/hca_names.c
$(FUZZ)/fuzz_%:
	@mkdir -p $(dir $@)
	@echo "  FUZZ-LD $@"
	@$(CLANG) $(FUZZ_CFLAGS) -o $@ $^ $(OTF2_LIBS) -lpthread -lm
fuzz: $(FUZZ)/fuzz_model $(FUZZ)/fuzz_config $(FUZZ)/fuzz_trace $(BUILD)/tests/hcasynth
	@mkdir -p $(FUZZ)/fuzz_model.corpus $(FUZZ)/fuzz_config.corpus $(FUZZ)/fuzz_trace.corpus
	@cp models/*.model tests/models/*.model $(FUZZ)/fuzz_model.corpus/ 2>/dev/null || true
	@cp tests/fuzz/config/* $(FUZZ)/fuzz_config.corpus/
	@rm -rf $(FUZZ)/seed-trace
	@$(BUILD)/tests/hcasynth --out $(FUZZ)/seed-trace --instances 20 --duration-ms 5 --period-ms 2 \
	    --counter instructions:0-1=1e9 > /dev/null
	@for i in 0 1 2 3; do f=$$(echo traces/0.evt traces/0.def traces.def traces.otf2 | cut -d' ' -f$$((i + 1))); \
	    { printf "\\$$(printf %o $$i)"; cat $(FUZZ)/seed-trace/$$f; } > $(FUZZ)/fuzz_trace.corpus/seed$$i; done
	cd $(FUZZ) && ./fuzz_model -runs=$(FUZZ_RUNS) fuzz_model.corpus
	cd $(FUZZ) && ./fuzz_config -runs=$(FUZZ_RUNS) fuzz_config.corpus
	cd $(FUZZ) && FUZZ_TRACE=seed-trace LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
	    ./fuzz_trace -runs=$(FUZZ_TRACE_RUNS) fuzz_trace.corpus

# header dependencies written by -MMD (none before the first build)
# An object without its dependency file (built before -MMD, or the .d lost) is
# rebuilt: each .d is a prerequisite of its object, a target without a recipe.
DEPFILES := $(patsubst %.c,$(BUILD)/obj/lib/%.d,$(LIB_SRC) $(SCHEMA_READ_SRC) src/hca_recover.c src/hcatrace_list_events.c) \
    $(patsubst fold/%.c,$(BUILD)/obj/fold/%.d,$(wildcard fold/*.c)) \
    $(patsubst tests/%.c,$(BUILD)/obj/tests/%.d,$(wildcard tests/*.c tests/*/*.c))
$(DEPFILES):
-include $(wildcard $(DEPFILES))

check: all $(UNIT_BIN)
	BUILD=$(BUILD) MPIRUN=$(MPIRUN) LIBOMP=$(LIBOMP) CMOCKA_OK=$(CMOCKA_OK) tests/run-tests.sh
	$(MAKE) BUILD=build/san SANITIZE=1 check-sanitized

check-sanitized: all $(UNIT_BIN)
	BUILD=$(BUILD) MPIRUN=$(MPIRUN) LIBOMP=$(LIBOMP) CMOCKA_OK=$(CMOCKA_OK) SANITIZED=1 tests/run-tests.sh

bench: all
	bench/run.sh
	bench/sampling.sh
	bench/counters.sh
	bench/overhead.sh
	bench/openmp.sh

# the hcatrace command learns the version and where the library is installed
install: $(LIB) $(HCAFOLD) $(EXAMPLES) $(LIST_EVENTS)
	install -d $(DESTDIR)$(LIBDIR)/hcatrace $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATAROOTDIR)/doc/hcatrace \
	    $(DESTDIR)$(DATAROOTDIR)/hcatrace/examples $(DESTDIR)$(DATAROOTDIR)/hcatrace/models
	install -m 755 $(LIB) $(DESTDIR)$(LIBDIR)/libhcatrace.so
	install -m 755 $(LIST_EVENTS) $(DESTDIR)$(LIBDIR)/hcatrace/list-events
	sed -e "s|^version='@VERSION@'|version='$(VERSION)'|" -e "s|^libdir='@LIBDIR@'|libdir='$(LIBDIR)'|" \
	    -e "s|^prefix='@PREFIX@'|prefix='$(PREFIX)'|" \
	    scripts/hcatrace > $(DESTDIR)$(BINDIR)/hcatrace
	chmod 755 $(DESTDIR)$(BINDIR)/hcatrace
	install -m 755 $(HCAFOLD) $(DESTDIR)$(BINDIR)/hcafold
	install -m 644 man/hcatrace.1 man/hcafold.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 include/hcatrace.h $(DESTDIR)$(INCLUDEDIR)/hcatrace.h
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	printf 'Name: hcatrace\nDescription: %s\nVersion: %s\nCflags: -I%s\nLibs:\n' \
	    "region markers for hcatrace (weak symbols: nothing to link)" "$(VERSION)" "$(INCLUDEDIR)" \
	    > $(DESTDIR)$(LIBDIR)/pkgconfig/hcatrace.pc
	install -m 644 docs/*.md README.md $(DESTDIR)$(DATAROOTDIR)/doc/hcatrace/
	install -m 644 examples/*.c examples/*.f90 $(DESTDIR)$(DATAROOTDIR)/hcatrace/examples/
	sed -e "s|^bindir='@BINDIR@'|bindir='$(BINDIR)'|" examples/trace-examples.sh \
	    > $(DESTDIR)$(DATAROOTDIR)/hcatrace/examples/trace-examples.sh
	chmod 755 $(DESTDIR)$(DATAROOTDIR)/hcatrace/examples/trace-examples.sh
	install -d $(DESTDIR)$(DATAROOTDIR)/hcatrace/examples/bin
	install -m 755 $(EXAMPLES) $(DESTDIR)$(DATAROOTDIR)/hcatrace/examples/bin/
	install -m 644 models/*.model models/README.md $(DESTDIR)$(DATAROOTDIR)/hcatrace/models/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libhcatrace.so $(DESTDIR)$(LIBDIR)/hcatrace/list-events $(DESTDIR)$(BINDIR)/hcatrace $(DESTDIR)$(BINDIR)/hcafold \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/hcatrace.pc \
	    $(DESTDIR)$(MANDIR)/man1/hcatrace.1 $(DESTDIR)$(MANDIR)/man1/hcafold.1 \
	    $(DESTDIR)$(INCLUDEDIR)/hcatrace.h
	rm -rf $(DESTDIR)$(DATAROOTDIR)/doc/hcatrace $(DESTDIR)$(DATAROOTDIR)/hcatrace
	-rmdir $(DESTDIR)$(LIBDIR)/hcatrace 2>/dev/null

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
	    --inline-suppr --suppress=missingIncludeSystem --language=c --std=c11 \
	    -U__cplusplus -DOMPI_SKIP_MPICXX=1 -itests/inline_app.cpp $(INCLUDES) -Ifold src instrument fold tests examples bench

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

.PHONY: all check check-sanitized bench install uninstall lint tidy clean print-unit-bins fuzz
