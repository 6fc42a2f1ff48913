// A shared library that is not a Pacer plugin: it lacks the entry point.
extern "C" int not_a_pacer_plugin() { return 0; }
