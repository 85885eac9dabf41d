/*
 * cli.c -- the command-line reading that the programs of tools/ and bench/ share (cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_take_value(int argc, char **argv, int *i, const char *const *names, const char *who,
                   const char **name, const char **value)
{
    const char *a = argv[*i];
    *name = a;
    *value = NULL;
    for (int j = 0; names[j]; j++) {
        const size_t l = strlen(names[j]);
        if (strncmp(a, names[j], l) != 0 || (a[l] != '\0' && a[l] != '=')) continue;
        if (a[l] == '=') {
            *value = a + l + 1;
        } else if (*i + 1 < argc) {
            *value = argv[++*i];
        } else {
            fprintf(stderr, "%s: %s needs a value\n", who, names[j]);
            return -1;
        }
        *name = names[j];
        return 0;
    }
    return 0;
}

int cli_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 1 << 30) return -1;
    *out = (int)v;
    return 0;
}

int cli_int_list(const char *s, long lo, long hi, int *out, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (errno || end == p || v < lo || v > hi || n >= max) return -1;
        out[n++] = (int)v;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return n;
}
