"""Draw the images of the shipped example suites (cases/) with Pillow.

Run it to regenerate them: ``python scripts/make_example_assets.py``. The
output is deterministic, so re-running it leaves git clean.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent.parent / "cases"
FONT = ImageFont.load_default(size=18)
SMALL = ImageFont.load_default(size=14)


def save(image: Image.Image, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", optimize=True)


def phone_screen(title: str, fields: list[str], button: str, accent: tuple[int, int, int]) -> Image.Image:
    img = Image.new("RGB", (320, 480), (246, 247, 250))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, 320, 56), fill=accent)
    d.text((16, 18), title, font=FONT, fill="white")
    y = 88
    for label in fields:
        d.text((24, y), label, font=SMALL, fill=(60, 60, 70))
        d.rounded_rectangle((24, y + 20, 296, y + 56), radius=8, outline=(180, 184, 194), fill="white", width=2)
        y += 80
    d.rounded_rectangle((24, 400, 296, 448), radius=12, fill=accent)
    width = d.textlength(button, font=FONT)
    d.text(((320 - width) / 2, 413), button, font=FONT, fill="white")
    return img


def logo(text: str, color: tuple[int, int, int]) -> Image.Image:
    img = Image.new("RGB", (256, 256), "white")
    d = ImageDraw.Draw(img)
    d.ellipse((48, 24, 208, 184), fill=color)
    d.polygon([(128, 54), (170, 150), (86, 150)], fill="white")
    width = d.textlength(text, font=FONT)
    d.text(((256 - width) / 2, 208), text, font=FONT, fill=(30, 30, 30))
    return img


def flyer(headline: str, lines: list[str], cta: str, accent: tuple[int, int, int]) -> Image.Image:
    """A simple event flyer: headline band, bullet lines, call-to-action box."""
    big = ImageFont.load_default(size=40)
    body = ImageFont.load_default(size=24)
    img = Image.new("RGB", (600, 800), (252, 250, 245))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, 600, 140), fill=accent)
    d.text((40, 48), headline, font=big, fill="white")
    y = 200
    for line in lines:
        d.text((60, y), line, font=body, fill=(30, 30, 40))
        y += 60
    d.line((160, 720, 440, 720), fill=accent, width=6)
    width = d.textlength(cta, font=big)
    d.text(((600 - width) / 2, 655), cta, font=big, fill=(30, 30, 40))
    return img


def circle_mask() -> Image.Image:
    """RGBA mask: transparent where the edit may happen (the circle), opaque elsewhere."""
    mask = Image.new("RGBA", (256, 256), (0, 0, 0, 255))
    ImageDraw.Draw(mask).ellipse((44, 20, 212, 188), fill=(0, 0, 0, 0))
    return mask


def main() -> None:
    ui = ROOT / "cookbook" / "ui_mockups"
    save(phone_screen("Sign in", ["Email", "Password"], "Log In", (37, 99, 235)), ui / "login.png")
    save(phone_screen("Checkout", ["Card number", "Expiry", "Name on card"], "Place Order", (22, 163, 74)), ui / "checkout.png")
    save(phone_screen("Settings", ["Display name", "Language"], "Save", (124, 58, 237)), ui / "settings.png")

    logos = ROOT / "cookbook" / "logo_edits"
    save(logo("NORTHWIND", (220, 38, 38)), logos / "northwind.png")
    save(logo("NORTHWIND", (13, 148, 136)), logos / "northwind-teal.png")
    save(logo("ACME LABS", (234, 179, 8)), logos / "acme.png")
    save(logo("ACME LABS", (30, 64, 175)), logos / "acme-navy.png")
    save(circle_mask(), logos / "circle-mask.png")

    flyers = ROOT / "cookbook" / "flyers"
    save(
        flyer(
            "Summer Book Fair",
            ["- Saturday 14 June, 10am to 6pm", "- Riverside Library", "- Free entry for children"],
            "Visit us",
            (180, 83, 9),
        ),
        flyers / "book-fair.png",
    )
    save(
        flyer(
            "Farmers Market",
            ["- Every Sunday morning", "- Fresh bread and honey", "- 20% off for members"],
            "Join now",
            (21, 128, 61),
        ),
        flyers / "farmers-market.png",
    )


if __name__ == "__main__":
    main()
