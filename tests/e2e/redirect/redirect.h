/* redirect.h - tests/e2e/redirected_calls.sh */
unsigned vfoo(unsigned x);
unsigned vbar(unsigned x);
unsigned work(unsigned x);
unsigned __real_work(unsigned x);
unsigned sum(unsigned x);
unsigned h1(unsigned x);
unsigned h2(unsigned x);
unsigned h3(unsigned x);
unsigned h4(unsigned x);
unsigned h5(unsigned x);
unsigned spin(unsigned n);
