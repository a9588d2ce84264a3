"""One size count for txcript's own dirs (doctor's report, backup pruning by total size)."""

from __future__ import annotations

from pathlib import Path

from txcript.shared.files import regular_files_size


def test_counts_regular_files_at_or_under_the_path_and_never_follows_links(tmp_path: Path) -> None:
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"x" * 1000)
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "a").write_bytes(b"12345")
    (tree / "sub" / "b").write_bytes(b"123")
    (tree / "link").symlink_to(outside)
    (tree / "dirlink").symlink_to(tmp_path)

    assert regular_files_size(tree) == 8
    assert regular_files_size(tree / "a") == 5
    assert regular_files_size(tree / "link") == 0
    assert regular_files_size(tmp_path / "missing") == 0
