"""The pi session format, and the stores of the apps that write it (pi with oh-my-pi, Campfire,
OpenClaw). See ``docs/formats/pi.md``; the registry entries ``pi``, ``campfire`` and
``openclaw`` name their layers here."""
