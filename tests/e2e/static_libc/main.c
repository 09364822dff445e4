/* main.c - tests/e2e/static_libc.sh: a static program whose hot code is partly the C library's
 * (strcspn and memcpy, which glibc resolves at start-up to a variant in a section such as
 * .text.sse4.2 or .text.avx that several members of libc.a have). */
#include <stdio.h>
#include <string.h>

static char text[4096];

__attribute__((noinline)) static size_t words(const char *s)
{
    size_t n = 0;
    while (*s != '\0') {
        size_t len = strcspn(s, " ,.;");
        n += len > 0;
        s += len + (s[len] != '\0');
    }
    return n;
}

int main(int argc, char **argv)
{
    (void)argv;
    char copy[sizeof text];
    size_t total = 0;
    for (size_t i = 0; i + 1 < sizeof text; i++)
        text[i] = (char)(i % 7 == 0 ? ' ' : 'a' + (char)(i % 26));
    for (int r = 0; r < 300; r++) {
        memcpy(copy, text, sizeof text - (size_t)argc);
        copy[sizeof text - 1] = '\0';
        total += words(copy);
    }
    printf("%zu\n", total);
    return 0;
}
