from django import template
from django.utils.safestring import mark_safe

from course.figures import fill_figures

register = template.Library()


@register.tag
def drawfigures(parser, token):
    """`{% drawfigures language %}…{% enddrawfigures %}`: the enclosed HTML (the guide's article, which
    may come from the fragment cache with its figure slots empty) with the figures drawn in for this
    request, so a cached article never carries one visitor's figure choice, prediction or CSRF token
    to another."""
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("drawfigures takes the page's language")
    nodelist = parser.parse(("enddrawfigures",))
    parser.delete_first_token()
    return FiguresDrawnNode(nodelist, parser.compile_filter(bits[1]))


class FiguresDrawnNode(template.Node):
    def __init__(self, nodelist, language):
        self.nodelist, self.language = nodelist, language

    def render(self, context) -> str:
        html = self.nodelist.render(context)
        # the article is sanitized at sync; figures escape their data
        return mark_safe(fill_figures(html, self.language.resolve(context), context.get("request")))
