"""A stand-in for the two Ray Tune entry points the TLL005 fix case uses (Ray itself is
far too heavy for the test extras). It keeps the one property the fix is about: Tune
serializes each trial's config separately, while `with_parameters` puts its objects in
the object store once. `SERIALIZED_BYTES` counts what crossed that boundary."""
