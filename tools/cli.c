/*
 * cli.c -- the command-line reading that the programs of tools/ and bench/ share (cli.h).
 */
#include "cli.h"

#include <stdio.h>
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
