/*
 * cli.h -- the command-line reading that the programs of tools/ and bench/ share.
 *
 * Their options that take a value accept both "--opt value" and "--opt=value"; recognising
 * the two forms, and saying so when the value is missing, is written here once so that every
 * program reads its command line alike and a fix reaches all of them. What an option means
 * stays with each program.
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

#endif
