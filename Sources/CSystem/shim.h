#ifndef OPENPUSH_CSYSTEM_SHIM_H
#define OPENPUSH_CSYSTEM_SHIM_H
#include <spawn.h>

/* glibc (2.29 / 2.34) extensions that <spawn.h> only declares under _GNU_SOURCE, which the
   Swift Glibc module is built without. Subprocess needs them to start children without
   leaking this process's descriptors into them. */
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

#endif
