/* fuzz_model.c: libFuzzer target of the model language (src/hca_model*.c): any bytes
 * parse to a model or to one "file:line:col: message", never a crash, a hang or an
 * out-of-bounds read (ASan). Built and run by `make fuzz`; seeds: models/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hca_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0; /* the parser reads a C string, as read from a file */
    char err[512];
    hca_model *m = hca_model_parse(text, "fuzz.model", err, sizeof(err));
    if (m) {
        /* evaluate once on ones: the evaluator walks what the parser accepted */
        size_t n = hca_model_nevents(m);
        double *one = malloc((n + 1) * sizeof(double));
        const double **ev = malloc((n + 1) * sizeof(*ev));
        if (one && ev) {
            for (size_t i = 0; i < n; i++) {
                one[i] = 1.0;
                ev[i] = &one[i];
            }
            hca_model_result r;
            if (hca_model_eval(m, ev, 1, &r) == 0)
                hca_model_result_free(&r);
        }
        free(one);
        free(ev);
        hca_model_free(m);
    }
    free(text);
    return 0;
}
