result = call(
    first,
    second,  # autodd: freeze
    third,
)
other = 1
