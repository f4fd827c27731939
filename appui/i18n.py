"""UI labels in English and Chinese, one table.  The sidebar switch sets `LANG_KEY` in session state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

LANG_KEY = "lang"
LANGUAGES = ("en", "zh")

_LABELS: dict[str, tuple[str, str]] = {
    "app_title": ("MCR scorer", "国标麻将算番"),
    "language": ("Language / 语言", "Language / 语言"),
    "page_manual": ("Manual scorer", "手动算番"),
    "page_photo": ("Score a photo", "拍照算番"),
    "page_live": ("Live table", "实时摄像"),
    "page_label": ("Label photos", "标注照片"),
    "page_match": ("Match", "对局记分"),
    # manual page
    "manual_intro": (
        "Pick tiles from the palette. Choose first where a click puts the tile.",
        "从牌库点选牌。先选择点击后牌放到哪里。",
    ),
    "add_to": ("A click adds to", "点击加入"),
    "target_standing": ("Standing hand", "手牌"),
    "target_win": ("Winning tile", "和牌张"),
    "target_chow": ("Chow (lowest tile)", "吃 (最小的牌)"),
    "target_pung": ("Pung", "碰"),
    "target_kong": ("Kong", "明杠"),
    "target_concealed_kong": ("Concealed kong", "暗杠"),
    "palette": ("Tile palette", "牌库"),
    "your_hand": ("The hand", "当前牌"),
    "click_to_remove": ("Click a tile or meld to take it out.", "点击牌或副露将其移除。"),
    "standing": ("Standing", "手牌"),
    "win_tile": ("Winning tile", "和牌张"),
    "melds": ("Melds", "副露"),
    "flowers": ("Flowers", "花牌"),
    "clear": ("Clear all", "全部清除"),
    "notation": ("Or type the hand in notation", "或输入牌型记号"),
    "notation_help": (
        "Example: [123m] [EEE] (5555p) 78s11p +9s self-drawn seat=S prevalent=W flowers=2. "
        "[...] exposed meld, (...) concealed kong, + the winning tile.",
        "例: [123m] [EEE] (5555p) 78s11p +9s self-drawn seat=S prevalent=W flowers=2。"
        "[...] 明副露, (...) 暗杠, + 和牌张。",
    ),
    "load": ("Load", "载入"),
    "standing_count": ("Standing tiles: {n} of {need}", "手牌: {n} / {need} 张"),
    "need_win": ("Pick the winning tile to score.", "请选择和牌张。"),
    "need_more": ("Add {n} more standing tile(s) to score.", "还需 {n} 张手牌才能算番。"),
    "too_many": ("Take out {n} standing tile(s): with {m} meld(s) the hand holds {need}.",
                 "请移除 {n} 张手牌: {m} 组副露时手牌应为 {need} 张。"),
    # win context
    "context": ("Win context", "和牌情况"),
    "win_by": ("Won by", "和牌方式"),
    "discard": ("Discard", "点和"),
    "self_drawn": ("Self-drawn", "自摸"),
    "seat_wind": ("Seat wind", "门风"),
    "prevalent_wind": ("Prevalent wind", "圈风"),
    "discarder": ("Discarded by", "放铳者"),
    "last_tile": ("Last tile (和绝张)", "和绝张"),
    "last_of_wall": ("Last of the wall", "海底 / 妙手回春"),
    "kong_replacement": ("Kong replacement", "杠上开花"),
    "robbing_kong": ("Robbing the kong", "抢杠和"),
    "flower_count": ("Flowers and seasons", "花牌数"),
    "why_no_kong": ("Needs a kong among the melds.", "副露中需要有杠。"),
    "why_replacement_discard": ("A kong replacement tile is self-drawn: choose self-drawn first.",
                                "杠上开花一定是自摸: 请先选择自摸。"),
    "why_robbing_self_drawn": ("Robbing the kong is a win on another player's kong, never self-drawn.",
                               "抢杠和是和别人加杠的牌, 不能是自摸。"),
    "why_robbing_holds_copy": ("The hand holds another {tile}: a kong of {tile} could not have been robbed.",
                               "手中已有 {tile}: 不可能抢到 {tile} 的杠。"),
    "why_last_tile_holds_copy": ("The standing hand holds another {tile}: it cannot be the last one.",
                                 "手牌中还有 {tile}: 不可能是绝张。"),
    "why_robbing_replacement": ("Robbing the kong and kong replacement cannot both happen.",
                                "抢杠和与杠上开花不能同时成立。"),
    # result
    "result": ("Score", "得分"),
    "total": ("Total", "总番"),
    "minimum_ok": ("Meets the 8-fan minimum ({n} fan without flowers).", "满足8番起和 (不计花牌 {n} 番)。"),
    "minimum_fail": ("Below the 8-fan minimum ({n} fan without flowers): not a legal win.",
                     "不足8番起和 (不计花牌 {n} 番): 不能和牌。"),
    "fans": ("Fans", "番种"),
    "col_zh": ("Chinese", "中文"),
    "col_en": ("English", "英文"),
    "col_points": ("Points", "番数"),
    "col_count": ("Count", "次数"),
    "col_subtotal": ("Subtotal", "小计"),
    "col_id": ("No.", "编号"),
    "excluded": ("Excluded fans (不计)", "不计的番种"),
    "col_excluded_by": ("Excluded by", "因...不计"),
    "no_excluded": ("No fan was excluded.", "没有不计的番种。"),
    "decomposition": ("Read as", "拆牌"),
    "payments": ("Payments", "支付"),
    "col_seat": ("Seat", "座位"),
    "col_amount": ("Amount", "分数"),
    "winner": ("winner", "和牌者"),
    "warnings": ("Note", "注意"),
    "not_winning": ("Not a winning hand: {msg}", "不是和牌: {msg}"),
    "bad_hand": ("The hand is not valid: {msg}", "牌型无效: {msg}"),
    "scorer_missing": ("The scorer is not available: {msg}", "算番模块不可用: {msg}"),
    # photo page
    "photo_intro": (
        "Lay the hand out face up (standing row nearest the camera, the winning tile at its right end "
        "with a gap, melds above) and take one photo from above.",
        "将牌面朝上摆好 (手牌靠近镜头, 和牌张放在右端并留空隙, 副露在上方), 从上方拍一张照片。",
    ),
    "source": ("Photo from", "照片来源"),
    "upload": ("Upload a photo", "上传照片"),
    "camera": ("Take a photo", "拍照"),
    "no_models": ("No tile detector is available: {msg}", "没有可用的识别模型: {msg}"),
    "bad_image": ("That image could not be read: {msg}", "无法读取图片: {msg}"),
    "no_tiles": ("No tiles were found in the photo.", "照片中没有识别到牌。"),
    "tiles_found": ("Tiles found: {n}", "识别到 {n} 张牌"),
    "model": ("Detector", "识别模型"),
    "issues": ("What the reader was unsure of", "识别存疑之处"),
    "no_issues": ("The reader raised no issues.", "没有识别问题。"),
    "as_read": ("The hand as read", "识别出的牌"),
    "correct": ("Correct a tile", "修正"),
    "pick_tile": ("Tile", "牌"),
    "face": ("Face", "牌面"),
    "group": ("Group", "组"),
    "apply": ("Apply", "应用"),
    "remove": ("Remove", "删除"),
    "mark_win": ("Make it the winning tile", "设为和牌张"),
    "add_tile": ("Add a missed tile", "添加漏识别的牌"),
    "add": ("Add", "添加"),
    "reset": ("Undo all corrections", "撤销所有修正"),
    "save": ("Save for training", "保存用于训练"),
    "saved": ("Saved {image} and {labels}.", "已保存 {image} 与 {labels}。"),
    "save_failed": ("Could not save: {msg}", "保存失败: {msg}"),
    "save_dir": ("Folder for saved photos", "保存文件夹"),
    "corrected": ("{n} correction(s) made.", "已修正 {n} 处。"),
    "group_hand": ("standing", "手牌"),
    "group_win": ("winning tile", "和牌张"),
    "group_meld": ("meld {n}", "副露 {n}"),
    "group_flowers": ("flowers", "花牌"),
    "group_unplaced": ("not used", "未使用"),
    "detector_failed": ("The tile detector failed on this photo: {msg}", "识别模型处理此照片时出错: {msg}"),
    "cannot_score": ("Cannot score yet: {msg}", "暂时无法算番: {msg}"),
    # live page
    "live_intro": (
        "Point the webcam at the table. Tiles are boxed live; with 13 tiles the waits are shown, "
        "with a complete hand its score.",
        "将摄像头对准牌桌。实时框出牌; 13张时显示听牌, 和牌时显示得分。",
    ),
    "live_waiting": ("Start the camera to read the table.", "请开启摄像头。"),
    "fps": ("Frames/s", "帧/秒"),
    "waits": ("Waits", "听牌"),
    "col_wait": ("Tile", "牌"),
    "col_discard": ("On a discard", "点和"),
    "col_self_drawn": ("Self-drawn", "自摸"),
    "col_main_fans": ("Main fans", "主要番种"),
    "no_waits": ("Not ready: no tile completes these 13 tiles.", "未听牌。"),
    "live_tiles": ("Tiles in view: {n}", "画面中 {n} 张牌"),
    "readings": ("{n} readings/s", "每秒识别 {n} 次"),
    "webrtc_missing": ("The live page needs streamlit-webrtc: {msg}", "实时页面需要 streamlit-webrtc: {msg}"),
    # label page (appui.labeling)
    "lbl_intro": ("Pre-label a folder first: `python -m datasets.label prelabel FOLDER`. Photos come least sure "
                  "first; every change is saved at once; a photo is reviewed once you press \"Looks right\".",
                  "先预标注文件夹: `python -m datasets.label prelabel 文件夹`。最不确定的照片排在前面; 每次修改立即保存; "
                  "按 \"看过了, 正确\" 后照片才算已审核。"),
    "lbl_previous": ("◀ Previous", "◀ 上一张"),
    "lbl_next": ("Next ▶", "下一张 ▶"),
    "lbl_looks_right": ("Looks right: mark reviewed ▶", "看过了, 正确: 标为已审核 ▶"),
    "lbl_unreadable": ("{name}: {msg}. Fix or delete the file; Previous and Next still work.",
                       "{name}: {msg}。请修正或删除该文件; 仍可切换上一张/下一张。"),
    "lbl_state_reviewed": ("reviewed", "已审核"),
    "lbl_state_open": ("not reviewed yet", "尚未审核"),
    "lbl_status": ("{n} boxes, {state}, least sure {conf}", "{n} 个框, {state}, 最低置信度 {conf}"),
    "lbl_all_done": ("All {n} photos are reviewed. Teach the model: python -m vision.adapt FOLDER",
                     "全部 {n} 张照片已审核。训练模型: python -m vision.adapt 文件夹"),
    "lbl_boxes": ("Boxes (numbers as on the photo; pick one or more)", "框 (编号同照片; 可多选)"),
    "lbl_boxes_hint": ("pick boxes by their number", "按编号选择框"),
    "lbl_face": ("Correct face (type a code, 中文 or English name)", "正确的牌 (输入代码、中文或英文名)"),
    "lbl_face_hint": ("e.g. s2, 夏, summer", "例: s2, 夏, summer"),
    "lbl_set_face": ("Set face of the picked", "设为此牌"),
    "lbl_row": ("Faces of the picked, left to right", "所选框的牌, 从左到右"),
    "lbl_set_row": ("Set these faces", "设定这些牌"),
    "lbl_back": ("Mark as tile back", "标为牌背"),
    "lbl_delete": ("Delete the picked", "删除所选框"),
    "lbl_below": ("Confidence below", "置信度低于"),
    "lbl_delete_below": ("Delete all {n} boxes below it", "删除低于此值的 {n} 个框"),
    "lbl_undo": ("↶ Undo", "↶ 撤销"),
    "lbl_add_title": ("Add a box (pixel corners)", "添加框 (像素坐标)"),
    "lbl_add": ("Add box", "添加框"),
    "lbl_pick_first": ("Pick a box first (its number on the photo).", "请先选择框 (照片上的编号)。"),
    "lbl_pick_face": ("Pick the face first.", "请先选择牌。"),
    "lbl_row_count": ("{faces} faces typed for {boxes} picked boxes: give one face per box.",
                      "输入了 {faces} 张牌, 但选了 {boxes} 个框: 每个框一张。"),
    "lbl_saved": ("{what} — saved {file}", "{what} — 已保存 {file}"),
    "lbl_not_saved": ("not saved: {msg}", "未保存: {msg}"),
    "lbl_not_added": ("box not added: {msg}", "未添加框: {msg}"),
    "lbl_now": ("box {boxes} now {face}", "框 {boxes} 现为 {face}"),
    "lbl_deleted": ("box {boxes} deleted", "已删除框 {boxes}"),
    "lbl_deleted_below": ("{n} boxes below {conf:.2f} deleted", "已删除 {n} 个置信度低于 {conf:.2f} 的框"),
    "lbl_added": ("added a {face} box", "已添加 {face} 框"),
    "lbl_undone": ("last change undone ({file})", "已撤销上一次修改 ({file})"),
    "lbl_reviewed": ("{name} marked reviewed", "{name} 已标为已审核"),
    "lbl_canvas_hint": ("Click a box to pick it (again to unpick); drag to draw a box of the face picked below.",
                        "点击框选中 (再点取消); 拖动画出新框, 牌为下方所选。"),
    "lbl_draw_face": ("Pick the face of the new box first (Correct face), then drag on the photo.",
                      "请先选择新框的牌 (正确的牌), 再在照片上拖动。"),
    # LAN mode (appui.access, appui.lan)
    "access_title": ("Enter the access code", "请输入访问码"),
    "access_intro": ("The code is shown where the app was started (the laptop's terminal).",
                     "访问码显示在启动本程序的终端上。"),
    "access_code": ("Access code", "访问码"),
    "access_enter": ("Enter", "进入"),
    "access_wrong": ("That is not the code.", "访问码不对。"),
    "access_too_soon": ("Too many wrong codes.", "错误次数过多。"),
    "access_wait": ("Try again in {s} s.", "请 {s} 秒后再试。"),
    "access_no_code": ("LAN mode needs an access code: start the app with scripts/app.sh --lan.",
                       "局域网模式需要访问码: 请用 scripts/app.sh --lan 启动。"),
    "access_again": ("Access code again, to change this for everyone", "再次输入访问码 (此操作影响所有人)"),
    "lan_scan": ("Open on a phone: scan, accept the certificate once, enter the code.",
                 "用手机扫码打开, 接受一次证书, 输入访问码。"),
    "data_root": ("Data folder", "数据文件夹"),
    "outside_root": ("Choose a folder inside the data folder {root}: {msg}", "请选择数据文件夹 {root} 中的文件夹: {msg}"),
}


def lang() -> str:
    """The language chosen in the sidebar (English until chosen)."""
    import streamlit as st

    value = st.session_state.get(LANG_KEY, "en")
    return value if value in LANGUAGES else "en"


def t(key: str, language: str | None = None, **values: Any) -> str:
    """The label `key` in the current (or given) language, with `{name}` fields filled."""
    en, zh = _LABELS[key]
    text = zh if (language or lang()) == "zh" else en
    return text.format(**values) if values else text


def translator(prefix: str = "") -> Callable[[str], str]:
    """A widget format_func: `prefix + key` in the language of this run (bound now, used later)."""
    language = lang()
    return lambda key: t(f"{prefix}{key}", language)


def label_keys() -> tuple[str, ...]:
    return tuple(_LABELS)
