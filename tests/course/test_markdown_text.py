"""One reading of a guide's Markdown into prose, fenced code and display math (course/markdown_text.py)."""

from course.markdown_text import (
    CODE,
    MATH,
    PROSE,
    blocks,
    classified_lines,
    code_blocks,
    prose_lines,
    without_code_and_math,
)

SOURCE = """## Loop {#loop}

Divide the loss.

``` { .python .runnable }
# not a heading
loss = loss / N
```

$$
L = \\frac{1}{N}
$$

~~~text
```
## still code
~~~

Done.
"""


def test_a_guide_splits_into_prose_code_and_math_blocks_in_order():
    found = blocks(SOURCE)
    assert [block.kind for block in found] == [PROSE, CODE, PROSE, MATH, PROSE, CODE, PROSE]
    runnable, diagram = found[1], found[5]
    assert runnable.info == "{ .python .runnable }" and runnable.text == "# not a heading\nloss = loss / N"
    assert found[3].body == ("L = \\frac{1}{N}",)
    assert diagram.info == "text" and diagram.body == ("```", "## still code")  # a ``` line does not close ~~~


def test_every_line_keeps_its_place_and_only_prose_lines_are_prose():
    assert [line for _kind, line in classified_lines(SOURCE)] == SOURCE.splitlines()
    prose = prose_lines(SOURCE)
    assert "## Loop {#loop}" in prose and "Done." in prose
    assert not [line for line in prose if "not a heading" in line or "still code" in line or "frac" in line]


def test_a_fence_closes_only_with_as_many_marks_or_more_and_nothing_after_them():
    source = "````python\n```\nx = 1\n``` not a close\n`````\n## After {#after}\n"
    (block,) = code_blocks(source)
    assert block.body == ("```", "x = 1", "``` not a close") and block.closing == "`````"
    assert prose_lines(source) == ["## After {#after}"]


def test_a_fence_left_open_runs_to_the_end():
    (block,) = code_blocks("```python\nx = 1\n## inside {#inside}")
    assert block.closing is None and block.lines == ("```python", "x = 1", "## inside {#inside}")


def test_rendered_code_and_formulas_are_taken_out_of_the_words_read():
    html = (
        '<p>Read <span class="arithmatex"><math><mi>N</mi></math></span> this.</p>'
        '<div class="runnable codehilite"><pre><span>secret()</span></pre></div>'
        '<div class="arithmatex"><math display="block"><mi>x</mi></math></div><p>And this.</p>'
    )
    assert without_code_and_math(html) == "<p>Read   this.</p>  <p>And this.</p>"
