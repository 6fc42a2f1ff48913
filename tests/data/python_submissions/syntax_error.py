"""A submission with a syntax error (the tests expect the file and the line)."""


def update_params(workload, current_param_container):
    x = (1 +
    return x
