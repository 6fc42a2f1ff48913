// Measures the process-start time of every pacer process a run starts (issue 46's CI goal is
// about it): loaded with LD_PRELOAD, it appends to $PACER_START_LOG, for each process whose
// executable is named pacer or pacer-train, or is a test executable (a name ending in _test), the
// CPU time (user + system, getrusage) it had used
//   main   when main() begins: loading and relocating the libraries, their constructors (for
//          LibTorch, registering its operators); after an exec the image's time plus the one before
//   atexit when exit() begins (a handler registered at main's start, so it runs first), and
//   fini   when the dynamic linker finalizes this library, after every C++ static destructor and
//          the finalizers of the libraries loaded after it.
// A process's start time is its last `main` (an exec keeps the pid and the clock: the light pacer
// handing a command to pacer-train is one process, both starts counted once); its exit time is
// fini - atexit. Not seen: the kernel's unmapping after fini, and the exit of a process killed or
// ended by _exit (so both are undercounts, larger for the process that maps more).
// Lines: key (pid:starttime, unique over the run and constant across exec), event, CPU s, executable,
// argv[1] (the sub-command), and whether LibTorch was loaded when main began (1/0; main lines only).
//
//   gcc -O2 -shared -fPIC -o start_cost_shim.so bench/process_start/start_cost_shim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef int (*main_fn)(int, char**, char**);
typedef int (*start_main_fn)(main_fn, int, char**, void (*)(void), void (*)(void), void (*)(void), void*);

static main_fn real_main;
static int watched;          // this process is pacer, pacer-train or a test executable
static char exe[512];
static char key[64];
static double cpu_at_exit = -1.0;

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
         (double)u.ru_stime.tv_usec / 1e6;
}

static char command[64];  // argv[1]: the sub-command (run, tune, ...), for the census
static int torch_loaded;

static int find_torch(struct dl_phdr_info* info, size_t size, void* found) {
  (void)size;
  if (info->dlpi_name && strstr(info->dlpi_name, "libtorch_cpu.so")) *(int*)found = 1;
  return 0;
}

static void log_event(const char* event, double cpu) {
  const char* path = getenv("PACER_START_LOG");
  if (!path || !*path) return;
  char line[768];
  int n = snprintf(line, sizeof line, "%s\t%s\t%.6f\t%s\t%s\t%d\n", key, event, cpu, exe, command, torch_loaded);
  if (n <= 0 || n >= (int)sizeof line) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t ignored = write(fd, line, (size_t)n);  // one write under O_APPEND: lines never interleave
  (void)ignored;
  close(fd);
}

// pid and the process's start time in clock ticks (/proc/self/stat field 22): pids are reused
// over a long run, the pair is not; both survive exec.
static void read_key(void) {
  char stat[1024];
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd < 0 ? -1 : read(fd, stat, sizeof stat - 1);
  if (fd >= 0) close(fd);
  unsigned long long start = 0;
  if (n > 0) {
    stat[n] = '\0';
    const char* p = strrchr(stat, ')');  // the command name may hold spaces; fields follow its ')'
    for (int field = 2; p && field < 22; ++field) p = strchr(p + 1, ' ');
    if (p) start = strtoull(p + 1, NULL, 10);
  }
  snprintf(key, sizeof key, "%ld:%llu", (long)getpid(), start);
}

static void at_exit_begins(void) {
  if (watched) cpu_at_exit = cpu_seconds();
}

__attribute__((destructor)) static void at_fini(void) {
  if (!watched) return;
  read_key();  // a forked child finalizes under its own pid
  if (cpu_at_exit >= 0.0) log_event("atexit", cpu_at_exit);
  log_event("fini", cpu_seconds());
}

static int measured_main(int argc, char** argv, char** envp) {
  const double cpu = cpu_seconds();
  read_key();
  snprintf(command, sizeof command, "%s", argc > 1 ? argv[1] : "");
  dl_iterate_phdr(find_torch, &torch_loaded);
  for (char* c = command; *c; ++c)
    if (*c == '\t' || *c == '\n') *c = ' ';
  log_event("main", cpu);
  atexit(at_exit_begins);
  return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char** argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void* stack_end) {
  start_main_fn real = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  const char* base = strrchr(exe, '/');
  base = base ? base + 1 : exe;
  const size_t length = strlen(base);
  watched = strcmp(base, "pacer") == 0 || strcmp(base, "pacer-train") == 0 ||
            (length > 5 && strcmp(base + length - 5, "_test") == 0);
  if (!watched) return real(main, argc, argv, init, fini, rtld_fini, stack_end);
  real_main = main;
  return real(measured_main, argc, argv, init, fini, rtld_fini, stack_end);
}
