/*
 * cli.h -- the command-line reading that the programs of tools/ and bench/ share.
 *
 * Their options that take a value accept both "--opt value" and "--opt=value"; recognising
 * the two forms, and saying so when the value is missing, is written here once so that every
 * program reads its command line alike and a fix reaches all of them; so are the numbers and
 * lists of numbers those values hold. What an option means stays with each program.
 */
#ifndef CLHGEMM_TOOLS_CLI_H
#define CLHGEMM_TOOLS_CLI_H

/* argv[*i] as one of `names` (a NULL-ended list of the options that take a value), written
 * "--opt value" or "--opt=value": *name becomes the listed name, *value its value, and *i the
 * index of the last argument read. Anything else leaves *i alone, *name = argv[*i] and
 * *value = NULL. Returns 0, or -1 when the value is missing (said on stderr as
 * "WHO: --opt needs a value"). */
int cli_take_value(int argc, char **argv, int *i, const char *const *names, const char *who,
                   const char **name, const char **value);

/* s as a whole decimal integer in [0, 2^30] (a count, a size): 0 and *out, or -1 with *out
 * left alone. */
int cli_count(const char *s, int *out);

/* s as a comma-separated list of decimal integers in [lo, hi] (a comma may end it), at most max
 * of them, into out: their count (0 for ""), or -1 when an entry is malformed or out of range,
 * or there are more than max. */
int cli_int_list(const char *s, long lo, long hi, int *out, int max);

#endif
