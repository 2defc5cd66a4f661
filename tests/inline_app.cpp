// inline_app.cpp: a C++ program whose call paths exist only in the debug
// information: five stage functions each call one always-inlined helper
// template (the work), the fifth stage is a template with a return type, and a
// last phase spends its time in libm's cbrt (an address with several alias
// names). Traced with sampling, each stage must show as the caller of the
// helper (tests/e2e/inline.sh). Usage: inline_app [ms per stage]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace hydro {

static double now_ms()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

template <typename T>
__attribute__((always_inline)) inline T accumulate(T *v, long n, T k, double ms)
{
    T sum = 0;
    for (double end = now_ms() + ms; now_ms() < end;)
        for (long i = 0; i < n; i++) { // LINE:helper
            v[i] = v[i] * k + (T)1e-9;
            sum += v[i];
        }
    return sum;
}

__attribute__((noinline)) double StageOne(double *v, long n, double ms)
{
    return accumulate(v, n, 0.999999, ms); // LINE:StageOne
}

__attribute__((noinline)) double StageTwo(double *v, long n, double ms)
{
    return accumulate(v, n, 0.999998, ms) + 2.0; // LINE:StageTwo
}

__attribute__((noinline)) double StageThree(double *v, long n, double ms)
{
    return accumulate(v, n, 0.999997, ms) * 3.0; // LINE:StageThree
}

__attribute__((noinline)) double StageFour(double *v, long n, double ms)
{
    return accumulate(v, n, 0.999996, ms) - 4.0; // LINE:StageFour
}

template <typename T> __attribute__((noinline)) T StageFive(T *v, long n, double ms)
{
    return accumulate(v, n, (T)0.999995, ms) / (T)5; // LINE:StageFive
}

__attribute__((noinline)) double Roots(double ms)
{
    volatile double x = 2.0;
    double sum = 0;
    for (double end = now_ms() + ms; now_ms() < end;)
        for (int i = 0; i < 1000; i++)
            sum += std::cbrt(x + i); // LINE:roots
    return sum;
}

} // namespace hydro

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 150;
    const long n = 2048;
    std::vector<double> data(n); // libstdc++ loaded, as in most C++ programs
    double *v = data.data();
    double s = hydro::StageOne(v, n, ms);
    s += hydro::StageTwo(v, n, ms);
    s += hydro::StageThree(v, n, ms);
    s += hydro::StageFour(v, n, ms);
    s += hydro::StageFive<double>(v, n, ms);
    s += hydro::Roots(ms);
    std::printf("%s\n", s == s ? "done" : "nan");
    return 0;
}
