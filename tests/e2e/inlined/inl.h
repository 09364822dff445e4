/* inl.h - tests/e2e/inlined.sh */
unsigned leaf(unsigned x);
unsigned hot_loop(unsigned n);
unsigned rare(unsigned n);
