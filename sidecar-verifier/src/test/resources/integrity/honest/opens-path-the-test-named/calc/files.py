# What click.File does with a default the test gives it (option(default=__file__, type=click.File())): the path is
# kept now and opened later, by another call.
ENCODING = "utf-8"


class Option:
    def __init__(self, default):
        self.default = default

    def first_line(self):
        with open(self.default, encoding=ENCODING) as f:
            return f.readline()


def first_line_of(path):
    with open(path, encoding=ENCODING) as f:
        return f.readline()
