"""UI labels in English and Chinese, one table.  The sidebar switch sets `LANG_KEY` in session state."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
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
    "page_teach": ("Teach my tiles", "教它认我的牌"),
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
    "read_with_shipped": ("Read with: shipped models", "识别所用模型: 出厂模型"),
    "read_with_calibrated": ("Read with: {name} (calibrated from {n} photo{s}, {date})",
                             "识别所用模型: {name} (由 {n} 张照片校准, {date})"),
    "read_with_adapted": ("Read with: {name} (adapted from labeled photos, {date})",
                          "识别所用模型: {name} (由标注照片训练, {date})"),
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
    # live page (appui.live)
    "waits": ("Waits", "听牌"),
    "col_wait": ("Tile", "牌"),
    "col_discard": ("On a discard", "点和"),
    "col_self_drawn": ("Self-drawn", "自摸"),
    "col_main_fans": ("Main fans", "主要番种"),
    "no_waits": ("Not ready: no tile completes these 13 tiles.", "未听牌。"),
    "live_tiles": ("Tiles in view: {n}", "画面中 {n} 张牌"),
    "live_waiting": ("Start the camera to read the table.", "请开启摄像头。"),
    "webrtc_missing": ("The live page needs streamlit-webrtc: {msg}", "实时页面需要 streamlit-webrtc: {msg}"),
    "live_intro": ("Point the webcam at your standing tiles: once readings of the view agree the panel shows how far the "
                   "hand is from ready, what to let go, or the waits with what each would score. Lay out a finished "
                   "hand and say how it was won for its total.",
                   "将摄像头对准自己的手牌: 多次识别一致后, 右侧显示离听牌还差几步、该打哪张, 或听哪些牌及各自番数。"
                   "摆出和牌后选择和牌方式即显示总番。"),
    "live_status": ("Read {analysed} frames/s ({readings} readings/s, the rest a still view kept) · video {fps} frames/s",
                    "每秒分析 {analysed} 帧 (识别 {readings} 次, 其余为画面未动沿用) · 视频 {fps} 帧/秒"),
    "live_hold": ("Hold this reading", "锁定此读数"),
    "live_held": ("Held: the camera no longer changes this reading.", "已锁定: 摄像头画面不再改变此读数。"),
    "live_age": ("Reading seen {s:.1f} s ago", "读数 {s:.1f} 秒前确认"),
    "live_reading": ("Reading the tiles… ({agree} of the last {votes} readings agree; {need} needed)",
                     "正在识别… (最近 {votes} 次中 {agree} 次一致; 需要 {need} 次)"),
    "live_nothing": ("No tiles in view.", "画面中没有牌。"),
    "live_reader_failed": ("The tile reader failed: {msg}", "识别出错: {msg}"),
    "live_from_ready": ("From ready", "向听数"),
    "live_ready_now": ("Ready", "已听牌"),
    "live_complete_now": ("Complete", "已和牌型"),
    "live_shanten_help": ("How many more useful draws the hand needs before it waits on a tile (0: ready).",
                          "还需要几张有效牌才能听牌 (0 即听牌)。"),
    "live_counted": ("{n} tiles counted (a meld counts 3): a hand waits with 13; read as a hand with its other melds "
                     "out of view.", "共计 {n} 张 (副露按 3 张计): 听牌时为 13 张; 按其余副露在画面外计算。"),
    "live_too_many": ("{n} tiles counted (a meld counts 3): more than a hand holds. Take some out of view.",
                      "共计 {n} 张 (副露按 3 张计): 超过一手牌, 请移出部分牌。"),
    "live_discards": ("Discards that keep it closest", "打出后最接近听牌的牌"),
    "live_col_let_go": ("Let go", "打出"),
    "live_col_after": ("From ready after", "打后向听"),
    "live_col_helps": ("Draws that help (unseen copies)", "有效进张 (未见张数)"),
    "live_col_unseen": ("Unseen", "未见"),
    "live_unseen_help": ("Copies of each wait not in view: four, less those in your hand and on the table.",
                         "每张听牌未出现在画面中的张数: 4 张减去手中和桌上可见的。"),
    "live_finished": ("A finished hand", "和牌"),
    "live_win_guessed": ("No tile is set apart: the rightmost is taken as the winning tile. Set the winning tile "
                         "apart to say which.", "没有单独放开的和牌张: 按最右边的牌计算。请把和牌张单独放开。"),
    "live_ask_won_by": ("How was it won? The total needs it.", "怎样和的? 算总番需要知道。"),
    "live_won_by": ("Won by", "和牌方式"),
    "live_special": ("Special cases", "特殊情况"),
    "live_doubts": ("The reader was unsure", "识别不确定之处"),
    "live_sure": ("The reader is sure of every tile.", "识别器对每张牌都有把握。"),
    "live_big": ("Big total for the table", "大字显示总番"),
    "live_match_deal": ("Match #{id}, deal {n}: round wind {round}.", "对局 #{id} 第 {n} 盘: 圈风 {round}。"),
    "live_player": ("Whose hand is this?", "这是谁的牌?"),
    "live_ask_player": ("Say whose hand it is: the seat wind comes from the match.", "请选择是谁的牌: 门风取自对局。"),
    "live_winds_here": ("Seat and round wind", "门风与圈风"),
    "live_scored_with": ("Scored as {seat} seat, {round} round.", "按门风 {seat}、圈风 {round} 计算。"),
    "live_minimum_ok": ("{n} fans without flowers: meets the 8-fan minimum.", "不计花牌 {n} 番: 达到 8 番起和。"),
    "live_minimum_fail": ("{n} fans without flowers: under the 8-fan minimum.", "不计花牌 {n} 番: 未达 8 番起和。"),
    "live_details": ("The reading, how it was won, fixes", "读数、和牌方式与修正"),
    "live_fix": ("Fix a tile", "修正一张牌"),
    "live_fix_help": ("Tap a tile the reader got wrong and pick its right name: the reading is held meanwhile.",
                      "点一张识别错的牌并选正确的牌名: 修正期间读数保持锁定。"),
    "live_intro_read": ("Point the webcam at your tiles: the panel reads the view at once and keeps reading it until "
                        "it is sure, showing how far the hand is from ready, what to let go, or the waits with what each "
                        "would score. Lay out a finished hand and say how it was won for its total.",
                        "将摄像头对准你的牌: 右侧立即识别画面, 并持续识别直到确定, 显示离听牌还差几步、该打哪张, "
                        "或听哪些牌及各自番数。摆出和牌后选择和牌方式即显示总番。"),
    "live_cam_start": ("Start the camera", "开启摄像头"),
    "live_cam_stop": ("Stop", "停止"),
    "live_reading_new": ("Reading the tiles in view…", "正在识别画面中的牌…"),
    "live_read_sure": ("Sure of this reading: {n} frames agree.", "读数可靠: {n} 帧一致。"),
    "live_read_more": ("Still reading ({n} frames so far): {why}.", "仍在识别 (已读 {n} 帧): {why}。"),
    "live_read_unsure": ("Read {n} times, not sure: {why}. Fix a tile below, or move the camera.",
                         "已读 {n} 次, 仍不确定: {why}。请在下方修正, 或移动摄像头。"),
    "live_why_few": ("{n} tiles counted, fewer than a hand", "共计 {n} 张, 不足一手牌"),
    "live_why_disagree": ("the frames disagree on {n} tile(s)", "各帧对 {n} 张牌识别不一"),
    "live_why_unsure": ("{n} tile(s) seen in few frames or read unsurely", "{n} 张牌只在少数帧出现或识别不确定"),
    "live_why_frames": ("a few frames more to be sure", "再读几帧以确认"),
    "live_no_doubt_matters": ("No unsure tile changes the hand.", "不确定的牌都不影响这手牌。"),
    "live_many_draws": ("Almost any draw helps: {n} kinds of tile.", "几乎任何进张都有用: 共 {n} 种牌。"),
    "live_recorded_winds": ("As recorded: {seat} seat, {round} round.", "按记录时: 门风 {seat}、圈风 {round}。"),
    # a tile whose face changes the hand (appui.doubts), on the photo and the live page
    "doubt_tile": ("Check the {tile} ({where}){frames}: {faces}.", "请检查{where}的{tile}{frames}: {faces}。"),
    "doubt_frames": (", read so in {n} of {m} frames", ", {m} 帧中 {n} 帧如此识别"),
    "doubt_as_total": ("as {face} the total is {total} ({change:+d})", "若是{face}, 总番 {total} ({change:+d})"),
    "doubt_as_wins": ("as {face} the hand wins, {total} fan", "若是{face}, 即和牌, {total} 番"),
    "doubt_as_no_win": ("as {face} the hand does not win", "若是{face}, 不能和牌"),
    "doubt_as_shanten": ("as {face} it is {n} from ready", "若是{face}, 向听数 {n}"),
    "doubt_as_waits": ("as {face} it waits on {waits}", "若是{face}, 听 {waits}"),
    "doubt_as_other": ("as {face} it makes no hand", "若是{face}, 不成牌型"),
    "doubt_unknown": ("The reader is unsure of the {tile} ({where}){frames}: check it.",
                      "识别器对{where}的{tile}没有把握{frames}: 请检查。"),
    "doubt_group_meld": ("meld", "副露"),
    "fix_choices": ("It may be:", "可能是:"),
    # label page (appui.labeling)
    "lbl_intro": ("Pre-label a folder first: `python -m datasets.label prelabel FOLDER`. Photos come least sure "
                  "first; every change is saved at once; a photo is reviewed once you press \"Looks right\".",
                  "先预标注文件夹: `python -m datasets.label prelabel 文件夹`。最不确定的照片排在前面; 每次修改立即保存; "
                  "按 \"看过了, 正确\" 后照片才算已审核。"),
    "lbl_folder": ("Photo folder", "照片文件夹"),
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
    "lbl_set_face": ("Set face", "设为此牌"),
    "lbl_row": ("Faces of the picked, left to right", "所选框的牌, 从左到右"),
    "lbl_set_row": ("Set these faces", "设定这些牌"),
    "lbl_back": ("Tile back", "牌背"),
    "lbl_delete": ("Delete", "删除"),
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
    "lbl_canvas_hint": ("Click a box to pick it (again to unpick). Drag: with one box picked, its right outline; "
                        "else a new box of the face chosen beside; with no face chosen, picks the boxes inside. "
                        "Keys: F set face, B tile back, Delete, Ctrl/⌘+Z undo, L looks right, P / N previous / next.",
                        "点击框选中 (再点取消)。拖动: 选中一个框时重画该框; 否则画出新框, 牌为旁边所选; 未选牌时框选。"
                        "按键: F 设为此牌, B 牌背, Delete 删除, Ctrl/⌘+Z 撤销, L 看过了, P / N 上一张 / 下一张。"),
    "lbl_tools": ("Add photos and pre-label them", "添加照片并预标注"),
    "lbl_upload": ("Photos to add to this folder", "添加到此文件夹的照片"),
    "lbl_add_photos": ("Add {n} photos", "添加 {n} 张照片"),
    "lbl_added_photos": ("{n} photos added", "已添加 {n} 张照片"),
    "lbl_prelabel": ("Pre-label the photos not labeled by a person yet", "预标注尚未人工标注的照片"),
    "lbl_prelabel_loading": ("loading the model in use ...", "正在载入当前模型 ..."),
    "lbl_prelabel_done": ("pre-labeled {n} photos ({boxes} boxes); {kept} kept as a person left them",
                          "已预标注 {n} 张照片 ({boxes} 个框); {kept} 张保留人工标注"),
    "lbl_prelabel_failed": ("pre-labeling stopped: {msg}", "预标注中止: {msg}"),
    "lbl_teach": ("Teach the model ({n} reviewed photos)", "训练模型 ({n} 张已审核照片)"),
    "lbl_teach_help": ("Fine-tunes the model on the reviewed photos (python -m vision.adapt); the new version is used "
                       "only if it reads the held-back photos better. Takes minutes.",
                       "用已审核照片微调模型 (python -m vision.adapt); 新版本只有在留出照片上更准时才启用。需要几分钟。"),
    "lbl_teach_no_torch": ("Teaching needs the training extra: stop the app and start it with bash scripts/app.sh --train",
                           "训练需要安装训练组件: 关闭应用后用 bash scripts/app.sh --train 启动"),
    "lbl_teaching": ("Teaching the model ...", "正在训练模型 ..."),
    "lbl_teach_failed": ("Teaching stopped (exit status {code}); the model in use is unchanged.",
                         "训练中止 (退出码 {code}); 当前模型未改变。"),
    "lbl_taught_promoted": ("New version {version} in use: held-back photos read {old} % -> {new} %.",
                            "新版本 {version} 已启用: 留出照片识别率 {old} % -> {new} %。"),
    "lbl_taught_kept": ("Version {version} is not used ({old} % -> {new} % on the held-back photos): {reason}.",
                        "版本 {version} 未启用 (留出照片 {old} % -> {new} %): {reason}。"),
    "lbl_not_better": ("it is not better; the model in use stays", "没有更好, 仍用当前模型"),
    "lbl_draw_face": ("Pick the face of the new box first (Correct face), then drag on the photo.",
                      "请先选择新框的牌 (正确的牌), 再在照片上拖动。"),
    "lbl_redrawn": ("box {boxes} redrawn", "框 {boxes} 已重画"),
    "lbl_lassoed": ("{n} boxes picked by the drag. To draw a new box instead, choose its face first.",
                    "拖动选中了 {n} 个框。要画新框, 请先选择它的牌。"),
    "lbl_stale": ("Not saved: {name} was changed in another tab or program{when} ({changes}). Nothing was changed "
                  "here; the labels are shown as they are now: pick the boxes again.",
                  "未保存: {name} 的标注已在另一个标签页或程序中修改{when} ({changes})。此处没有改动; "
                  "现在显示的是最新的标注, 请重新选择框。"),
    "lbl_stale_when": (" at {time}", " (于 {time})"),
    "lbl_ch_deleted": ("box {n} ({face}) deleted", "框 {n} ({face}) 已删除"),
    "lbl_ch_added": ("box {n} ({face}) added", "新增框 {n} ({face})"),
    "lbl_ch_face": ("box {n} {before} → {after}", "框 {n} {before} → {after}"),
    "lbl_ch_redrawn": ("box {n} ({face}) redrawn", "框 {n} ({face}) 已重画"),
    "lbl_ch_reviewed": ("marked reviewed", "已标为已审核"),
    "lbl_ch_unreviewed": ("no longer reviewed", "不再是已审核"),
    "lbl_ch_more": ("{n} more", "另有 {n} 处"),
    "lbl_ch_rewritten": ("its files were saved again", "文件被重新保存"),
    "lbl_unpicked": ("Box {boxes} changed in another tab or program since it was picked: picked no more.",
                     "框 {boxes} 在选中后已被另一个标签页或程序修改: 已取消选择。"),
    "lbl_teach_running": ("Teaching is already running (started at {since} from this or another tab): it runs once; "
                          "its progress and result are shown here.",
                          "已经在训练中 (于 {since} 由此页或另一个标签页开始): 只运行一次; 进度和结果显示在这里。"),
    "lbl_learn_running": ("A tile set is being learned on the Teach my tiles page (since {since}); teach the model "
                          "when it has ended.", "“教它认我的牌”页正在学习一套牌 (从 {since} 开始); 结束后再训练模型。"),
    "lbl_teach_step": ("Teaching, step {step} of 5: {text} (at most {minutes} min left; the page stays usable)",
                       "训练中, 第 {step} 步 (共 5 步): {text} (最多还需 {minutes} 分钟; 本页可照常使用)"),
    "lbl_teach_log": ("Teaching log ({n} lines, the last ones here)", "训练日志 (共 {n} 行, 这里显示最后几行)"),
    "lbl_teach_failed_why": ("Teaching stopped: {reason}. The model in use is unchanged (exit status {code}).",
                             "训练中止: {reason}。当前模型未改变 (退出码 {code})。"),
    # Teach my tiles page (appui.teach)
    "teach_intro": ("Lay out one tile of each face in five rows, far to near: 1-9 characters, 1-9 dots, 1-9 bamboo, "
                    "E S W N C F P, then the flowers and seasons. Tiles may touch; keep the rows straight. "
                    "Take one photo, or two or three from other angles, on the table or cloth you play on: the assistant "
                    "learns your set from them, and your table too, so that its pattern is not read as tiles.",
                    "把每种牌各一张摆成五行（由远及近）：一至九万、一至九筒、一至九条、东南西北中发白、花牌。"
                    "牌可以相挨，行要直。在你打牌的桌面或桌布上拍一张照片（或从不同角度拍两三张），助手就能学会你的牌，"
                    "也认得你的桌面，不会把桌布的花纹当成牌。"),
    "teach_source": ("Photo from", "照片来源"),
    "teach_upload": ("Upload photos (up to 3)", "上传照片（最多 3 张）"),
    "teach_camera": ("Take a photo", "拍照"),
    "teach_keep": ("Keep this photo and take another", "保留这张，再拍一张"),
    "teach_kept": ("{n} photo(s) kept; clear the camera's photo to take the next.", "已保留 {n} 张；清除相机里的照片再拍下一张。"),
    "teach_start_over": ("Start over", "重新开始"),
    "teach_too_many": ("Only the first {n} photos are used.", "只使用前 {n} 张照片。"),
    "teach_photo_n": ("Photo {n}", "照片 {n}"),
    "teach_left_out": ("Left out of the learning: photo(s) {which}, which do not show the layout.",
                       "学习时不用照片 {which}：它们与摆法不符。"),
    "teach_learn_from": ("Learning uses {n} photo(s).", "学习将使用 {n} 张照片。"),
    "teach_bonus": ("Flowers and seasons in row 5", "第五行的花牌"),
    "teach_bonus_all": ("all eight", "全部八张"),
    "teach_bonus_f": ("four flowers", "四张花"),
    "teach_bonus_s": ("four seasons", "四张季"),
    "teach_bonus_none": ("none (no row 5)", "无（没有第五行）"),
    "teach_no_models": ("The tile models cannot be loaded: {why}", "无法加载识别模型：{why}"),
    "teach_unreadable": ("This photo cannot be read: {why}", "无法读取照片：{why}"),
    "teach_all_placed": ("All {n} tiles found in their places: {right} read right by the version in use.",
                         "全部 {n} 张牌都在位：当前版本认对 {right} 张。"),
    "teach_problems": ("This photo does not show the layout; nothing will be learned from it:",
                       "照片与摆法不符，不会从中学习："),
    "teach_unordered": ("Read it as one of each face in no particular order", "按“每种一张、顺序不限”来读"),
    "teach_unordered_help": ("Each face is given to exactly one tile, the most likely way; check the names on the photo.",
                             "每种牌只分给一张，按最可能的方式；请核对照片上的名称。"),
    "teach_confirm": ("These names are right", "这些名称正确"),
    "teach_learn": ("Learn this set", "学习这套牌"),
    "teach_learning": ("Learning your set…", "正在学习…"),
    "teach_running": ("Learning is already running (started at {since} from this or another tab): it runs once; "
                      "its progress and result are shown here.",
                      "已经在学习中 (于 {since} 由此页或另一个标签页开始): 只运行一次; 进度和结果显示在这里。"),
    "teach_joined": ("Learning was already running when asked here (started at {since}): it ran once, its result is "
                     "this.", "这里请求时学习已在进行 (于 {since} 开始): 只运行了一次, 结果如下。"),
    "teach_other_running": ("The model is being taught on the Label photos page (since {since}); learn this set when "
                            "it has ended.", "“标注照片”页正在训练模型 (从 {since} 开始); 结束后再学习这套牌。"),
    "teach_promoted": ("Learned: version {version} is now in use ({seconds:.0f} s).",
                       "学会了：现在使用版本 {version}（{seconds:.0f} 秒）。"),
    "teach_not_promoted": ("Version {version} was kept but not put in use: {reason}.",
                           "已保存版本 {version}，但未启用：{reason}。"),
    "teach_before": ("Read right before", "学习前认对"),
    "teach_after": ("after", "学习后"),
    "teach_base": ("Other sets (base val photos)", "其他牌（基础验证照片）"),
    "teach_stopped": ("Learning stopped (exit status {code}); the models in use are unchanged.",
                      "学习中止 (退出码 {code}); 当前模型未改变。"),
    "teach_legend": ("Boxes: green, read as its place's face; orange, so but unsure (confidence under {sure}); red, "
                     "read as another face or not found.",
                     "框的颜色: 绿色, 认作该位置的牌; 橙色, 认对但不确定 (置信度低于 {sure}); 红色, 认成别的牌或没找到。"),
    "teach_learned": ("Learned (read wrong before, right now): {tiles}", "学会的牌 (之前认错, 现在认对): {tiles}"),
    "teach_still_unsure": ("Still unsure or wrong: {tiles}", "仍不确定或认错: {tiles}"),
    "teach_none": ("none", "无"),
    "teach_was": ("was {face}", "之前认作 {face}"),
    "teach_read_as": ("read as {face}", "认作 {face}"),
    "teach_after_caption": ("Read by the new version", "新版本的识别结果"),
    "teach_spec": ("The layout in full ({file})", "摆放方式详解 ({file})"),
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
    "outside_root": ("Not saved: {msg}. Type a folder name; it is made inside the data folder.",
                     "未保存: {msg}。请输入文件夹名, 它会建在数据文件夹之内。"),
    # photo page, made for a phone
    "ask_won_by": ("How was it won? Choose Discard or Self-drawn to see the total.",
                   "怎么和的? 选择点和或自摸后显示总番。"),
    "col_fan": ("Fan", "番种"),
    "pick_folder": ("Folders in the data folder", "数据文件夹中的文件夹"),
    "pick_folder_placeholder": ("Pick one, or type a name below", "选择一个, 或在下方输入名称"),
    "discarder_ask": ("Who discarded?", "谁放铳?"),
    "discarder_for_payments": ("Choose who discarded to see the payments.", "选择放铳者后显示支付。"),
    "reading_photo": ("Reading the tiles…", "正在识别…"),
    "no_tiles_hint": (
        "No tiles were found in the photo. Lay the hand out face up, take the photo from above in good light "
        "with every tile in the frame, and try again.",
        "照片中没有识别到牌。请将牌面朝上摆好, 在光线充足处从上方拍摄, 让所有牌都在画面内, 然后重试。",
    ),
    "doubts": ("Check these tiles", "请检查这些牌"),
    "no_doubts": ("The reader is sure of every tile.", "所有牌都识别得很确定。"),
    "settled_doubts": ("{n} unsure tile(s) the hand confirms (no other face makes it win)",
                       "{n} 张不确定的牌已由牌型确认 (换成别的牌都不能和)"),
    "tap_tile": ("Tap a tile to fix it.", "点击一张牌可以修正。"),
    "editing": ("Fix this tile", "修正这张牌"),
    "close": ("Close", "关闭"),
    "photo_boxes": ("The photo with the tiles boxed", "标出牌的照片"),
    "more_result": ("Excluded fans and payments", "不计的番种与支付"),
    # photo page: the result first on a phone, winds from the match
    "phone_first": ("Seat wind, prevalent wind and how it was won: a tap each, then the total.",
                    "门风、圈风、和牌方式: 各点一下, 然后显示总番。"),
    "ask_winds": ("Tap the winner's seat wind and the prevalent wind to see the total.",
                  "请点选和牌者的门风和圈风, 然后显示总番。"),
    "who_won": ("Who won?", "谁和牌?"),
    "ask_winner": ("Tap who won to see the total.", "请点选和牌者, 然后显示总番。"),
    "deal_line": ("Match #{id} · deal {n} of 16 · {round} round · dealer {dealer}: winds from the match",
                  "对局 #{id} · 第 {n}/16 盘 · {round}风圈 · 庄家 {dealer}: 风位取自对局"),
    "player_seat": ("{player} · {wind}", "{player} · {wind}"),
    "special_cases": ("Special cases: last tile, last of the wall, kong", "特殊情况: 和绝张、海底、杠"),
    "check_tiles": ("Check these {n} tiles, red on the photo", "请检查这 {n} 张牌 (照片上红框)"),
    "check_one_tile": ("Check this tile, red on the photo", "请检查这张牌 (照片上红框)"),
    "rests_on_tiles": ("Rests on {n} tile(s) in doubt: check below.", "取决于 {n} 张存疑的牌: 请检查下方。"),
    "rests_on_hand": ("Rests on a doubt about the hand: check below.", "取决于牌型上的疑问: 请检查下方。"),
    "meets_short": ("8-fan minimum met ({n} without flowers)", "满足8番起和 (不计花牌 {n} 番)"),
    "fails_short": ("Under the 8-fan minimum ({n} without flowers): no win", "不足8番起和 (不计花牌 {n} 番): 不能和牌"),
    "tap_photo": ("Tap a tile on the photo to fix it.", "点击照片上的牌可以修正。"),
    "make_it": ("Tiles that make the hand win here:", "换成这些牌能和牌:"),
    "other_face": ("Another face", "其他牌面"),
    "in_doubt": ("in doubt: check it", "存疑: 请检查"),
    "total_now": ("Total now: {total} fan", "现在总番: {total}"),
    "record_win": ("Record deal {n}: {winner} wins · {fan} fan", "记入第 {n} 盘: {winner} 和牌 · {fan} 番"),
    "recorded_win": ("Recorded as deal {n} of match #{id}: {winner} {fan} fan · {points}",
                     "已记入对局 #{id} 第 {n} 盘: {winner} {fan} 番 · {points}"),
    "already_recorded": ("This hand is deal {n} of match #{id}.", "这手牌已是对局 #{id} 第 {n} 盘。"),
    "record_under_minimum": ("Not recorded: {fan} fan ({without} without the flowers) is under the 8-fan minimum. "
                             "If it was declared, record a false win on the Match page.",
                             "未记入: {fan} 番 (不计花牌 {without} 番) 不足8番起和。若已宣布和牌, 请在对局记分页记为诈和。"),
    "record_refused": ("Not recorded: {msg}", "未记入: {msg}"),
    "ask_discarder_player": ("Tap who discarded to record the win.", "请点选放铳者, 然后记入。"),
    "match_over_here": ("Match #{id} is over (16 deals): the winds are asked here.",
                        "对局 #{id} 已结束 (16 盘): 风位在此询问。"),
    "match_unreadable": ("The open match cannot be read ({msg}): the winds are asked here.",
                         "无法读取打开的对局 ({msg}): 风位在此询问。"),
    "keep_a_match": ("Keeping a match? Open it on the Match page: the winds then come from the deal and one tap "
                     "records the win.", "在记分? 在对局记分页打开对局: 风位取自当前一盘, 点一下即可记入。"),
    "next_photo": ("Next photo", "下一张照片"),
    "source_upload": ("Camera", "相机"),
    "source_files": ("Photo file", "照片文件"),
    "source_camera": ("In-page camera", "网页相机"),
    "shoot": ("Take the photo (the phone's camera, full resolution)", "拍照 (手机相机, 全分辨率)"),
    "shoot_help": ("On a phone this opens its camera; on a computer it asks for a file.",
                   "在手机上打开相机; 在电脑上选择文件。"),
    "camera_small": ("The in-page camera takes small pictures (358 × 269 on a phone); the Camera choice gives the "
                     "phone's full photo.", "网页相机拍的照片很小 (手机上 358 × 269); 选择相机可得到手机的全尺寸照片。"),
    "photo_size": ("Photo {w} × {h} px", "照片 {w} × {h} 像素"),
    "not_winning_hint": ("These tiles do not make a winning hand.", "这些牌不能和牌。"),
    "look_at": ("Look at the {tile}: as {face} the hand would win.", "请检查 {tile}: 若是 {face} 就能和牌。"),
    "look_at_none": ("No single tile changed makes it win: check the tile count and the melds.",
                     "改动任何一张牌都不能和牌: 请检查牌数和副露。"),
    "save_root": ("Folders are inside the data folder {root}.", "文件夹位于数据文件夹 {root} 之内。"),
    "no_camera": (
        "No camera? Allow the camera when the browser asks. A phone opens its camera only on a secure page: "
        "start the app with `bash scripts/app.sh --lan` and open the https address it prints. "
        "Without a camera, use Score a photo with a picture.",
        "没有摄像头画面? 请在浏览器询问时允许使用摄像头。手机只在安全页面上打开摄像头: "
        "请用 `bash scripts/app.sh --lan` 启动并打开它显示的 https 地址。没有摄像头时, 可在拍照算番页上传照片。",
    ),
    "cam_start": ("START", "START"),
    "cam_stop": ("STOP", "STOP"),
    "cam_select": ("Choose a camera", "选择摄像头"),
    "cam_insecure": ("The browser allows the camera only on a secure page: open the https address that "
                     "scripts/app.sh --lan prints (or localhost on this computer).",
                     "浏览器只在安全页面上允许使用摄像头: 请打开 scripts/app.sh --lan 显示的 https 地址 (或本机的 localhost)。"),
    "cam_ask": ("Allow the camera when the browser asks.", "浏览器询问时请允许使用摄像头。"),
    "cam_none": ("No camera was found. Plug one in, or use Score a photo with a picture.",
                 "没有找到摄像头。请连接摄像头, 或在拍照算番页上传照片。"),
    "cam_denied": ("The camera is blocked for this page: allow it in the browser's site settings and reload.",
                   "此页面的摄像头被禁止: 请在浏览器的网站设置中允许并刷新。"),
    "upload_limit": ("Photos up to 50 MB (jpg, png, webp, bmp).", "照片最大 50 MB (jpg, png, webp, bmp)。"),
    # the reader's doubts in player words (vision.issues.IssueCode values)
    "issue_duplicate_reading": ("One tile was read twice, as {kept} and as {dropped}: {kept} was kept. Check it.",
                                "一张牌被识别了两次 ({kept} 和 {dropped}), 保留了 {kept}。请检查。"),
    "issue_low_confidence": ("Not sure of this one: is it the {name}?", "不太确定: 这是 {name} 吗?"),
    "issue_no_tiles": ("No tiles were found.", "没有识别到牌。"),
    "issue_only_flowers": ("Only flowers and seasons were found: lay out the whole hand.",
                           "只识别到花牌: 请摆出整手牌。"),
    "issue_rows_tilted": ("The rows are tilted ({angle}°): take the photo square to the rows.",
                          "牌排倾斜 ({angle}°): 请正对牌排拍摄。"),
    "issue_rows_upright": ("The rows run top to bottom: turn the photo so they run left to right.",
                           "牌排是竖的: 请旋转照片使牌排横向。"),
    "issue_too_many_groups": ("The meld row shows {groups} groups, but a hand has at most 4 melds: check the gaps.",
                              "副露排有 {groups} 组, 但最多 4 组: 请检查间隔。"),
    "issue_too_many_copies": ("The {name} is seen {seen} times, but a set has {limit}: one of them is another tile.",
                              "{name} 出现 {seen} 次, 但一副牌只有 {limit} 张: 其中一张是别的牌。"),
    "issue_back_in_standing": ("A face-down tile lies in the hand: if it is a white dragon, change it.",
                               "手牌中有一张背面朝上的牌: 如果是白板, 请修正。"),
    "issue_standing_too_short": ("The hand row is too short: put the winning tile a little apart at its right end.",
                                 "手牌太少: 请把和牌张放在右端并稍稍分开。"),
    "issue_win_not_set_apart": ("Which tile won? Tap it and choose \"Make it the winning tile\".",
                                "哪张是和牌张? 点击它并选择 \"设为和牌张\"。"),
    "issue_wide_gap_in_set": ("A wide gap inside the meld {shown}: read as one meld.", "副露 {shown} 中间间隔较大: 按一组处理。"),
    "issue_sets_touch": ("The melds {shown} and {after} touch: read as two melds.", "副露 {shown} 与 {after} 相连: 按两组处理。"),
    "issue_unusual_concealed_kong": ("The concealed kong {shown} looks unusual: check it is not a pung and a stray tile.",
                                     "暗杠 {shown} 不太寻常: 请确认不是刻子加一张散牌。"),
    "issue_group_back_not_kong": ("The meld {shown} has a face-down tile but is not a concealed kong.",
                                  "副露 {shown} 有背面朝上的牌, 但不是暗杠。"),
    "issue_kong_only_backs": ("A concealed kong shows only backs: tap one and choose its face.",
                              "暗杠只露出背面: 请点击一张并选择牌面。"),
    "issue_kong_faces_differ": ("The kong {shown} shows different faces: check them.", "杠 {shown} 的牌面不同: 请检查。"),
    "issue_kong_tile_missing": ("The meld {shown} has a face-down tile: read as a concealed kong of {tile} with one "
                                "tile not found. Check it.",
                                "副露 {shown} 有背面朝上的牌: 按 {tile} 的暗杠读取, 有一张牌未找到。请检查。"),
    "issue_group_not_suit_or_honor": ("The meld {shown} holds a tile that cannot be in a meld.",
                                      "副露 {shown} 中有不能组成副露的牌。"),
    "issue_group_size": ("The meld {shown} has {size} tiles; a meld has 3 or 4.", "副露 {shown} 有 {size} 张; 副露应为 3 或 4 张。"),
    "issue_group_not_set": ("The meld {shown} is not a chow, pung or kong: check its tiles.",
                            "副露 {shown} 不是顺子、刻子或杠: 请检查。"),
    "issue_unlike_set": ("Left out {count} box(es) that look like none of your set's tiles, or like your table, at "
                         "{where}: if one is a tile, add it.",
                         "略去了 {count} 个不像你这套牌、或像你的桌面的框，位置 {where}：如果其中有牌，请添加。"),
    "issue_stray_unused": ("Tiles lying apart were not used: {names}.", "分开放的牌未使用: {names}。"),
    "issue_stray_as_flowers": ("Tiles lying apart were counted as flowers: {names}. Change any that is not a flower, "
                               "and remove a die or a coin read as a tile.",
                               "分开放的牌按花牌计: {names}。如有不是花牌的请修正；骰子或筹码被认成牌的请删除。"),
    "issue_no_win_tile": ("Which tile won? Tap it and choose \"Make it the winning tile\".",
                          "哪张是和牌张? 点击它并选择 \"设为和牌张\"。"),
    "issue_meld_not_set": ("A meld is not a chow, pung or kong: check its tiles.", "有一组副露不是顺子、刻子或杠: 请检查。"),
    "issue_standing_not_faces": ("The hand holds face-down tiles: {names}.", "手牌中有背面朝上的牌: {names}。"),
    "issue_tile_count": ("With {melds} meld(s) the hand should hold {expected} tiles and the winning tile, but {held} "
                         "were found: add a missed tile or remove an extra one.",
                         "有 {melds} 组副露时手牌应为 {expected} 张加和牌张, 但识别到 {held} 张: 请添加漏掉的牌或删除多余的牌。"),
    "issue_too_many_flowers": ("{flowers} flowers and seasons were read, but a set has 8.", "识别到 {flowers} 张花牌, 但一副牌只有 8 张。"),
    "issue_invalid_hand": ("These tiles make no hand ({reason}).", "这些牌不成牌型 ({reason})。"),
    "issue_second_reading": ("Took the {name} for the {read_as} so the hand works: check it.",
                             "把 {name} 识别为 {read_as} 以便成牌: 请检查。"),
    "issue_left_out": ("Left out a doubtful extra tile ({names}): check nothing is missing.",
                       "去掉了一张可疑的多余牌 ({names}): 请检查有无遗漏。"),
    "issue_deduced": ("Could hardly read one tile and took it for the {read_as}, the only face that makes the hand win: "
                      "check it.", "有一张牌难以识别, 按唯一能和牌的 {read_as} 处理: 请检查。"),
    "issue_group_made_set": ("Took the {name} for the {read_as} so its meld is a chow, pung or kong: check it.",
                             "把 {name} 识别为 {read_as} 以使该组副露成为顺子、刻子或杠: 请检查。"),
    "issue_likeliest_face": ("Took the {name} for the {read_as}, by far the likeliest one change that makes the hand "
                             "win: check it.", "把 {name} 识别为 {read_as}, 这是使手牌和牌的最可能的一处修改: 请检查。"),
    "issue_back_as_flower": ("Took the tile lying apart, boxed as a back, for the {read_as} its face shows: "
                             "check it.", "分开放的一张牌被框为牌背, 按其牌面 {read_as} 计: 请检查。"),
    "issue_not_scored": ("Not scored: {reason}", "未算番: {reason}"),
}


_SUIT_WORDS = {"m": ("characters", "万"), "p": ("dots", "筒"), "s": ("bamboo", "条")}
_HONOUR_WORDS = {
    "E": "East wind", "S": "South wind", "W": "West wind", "N": "North wind",
    "C": "red dragon", "F": "green dragon", "P": "white dragon",
    "f1": "plum (flower)", "f2": "orchid (flower)", "f3": "chrysanthemum (flower)", "f4": "bamboo (flower)",
    "s1": "spring (season)", "s2": "summer (season)", "s3": "autumn (season)", "s4": "winter (season)",
    "back": "face-down tile",
}


def tile_words(name: str, language: str | None = None) -> str:
    """A tile as a player names it: '5 dots 五筒', 'green dragon 发', 'plum (flower) 梅'; Chinese alone in zh."""
    from tileset.classes import NAMES_ZH

    zh = NAMES_ZH.get(name, name)
    if (language or lang()) == "zh":
        return zh
    if len(name) == 2 and name[0].isdigit() and name[1] in _SUIT_WORDS:
        suit = _SUIT_WORDS[name[1]][0]
        return f"{name[0]} {suit.rstrip('s') if name[0] == '1' else suit} {zh}"  # 1 character, 1 dot; 5 characters
    return f"{_HONOUR_WORDS.get(name, name)} {zh}"


_SUIT_SHORT = {"m": "Char", "p": "Dot", "s": "Bam"}
_HONOUR_SHORT = {
    "E": "East", "S": "South", "W": "West", "N": "North", "C": "Red", "F": "Green", "P": "White",
    "f1": "Plum", "f2": "Orchid", "f3": "Mum", "f4": "Bam fl.", "s1": "Spring", "s2": "Summer", "s3": "Autumn",
    "s4": "Winter", "back": "Back",
}


def tile_short(name: str, language: str | None = None) -> str:
    """A tile's name short enough for a tile-wide button: '9 Bam', 'East', 'Plum'; '九条', '东', '牌背' in zh."""
    from tileset.classes import NAMES_ZH

    if (language or lang()) == "zh":
        return "牌背" if name == "back" else NAMES_ZH.get(name, name)
    if len(name) == 2 and name[0].isdigit() and name[1] in _SUIT_SHORT:
        return f"{name[0]} {_SUIT_SHORT[name[1]]}"
    return _HONOUR_SHORT.get(name, name)


def lang() -> str:
    """The language chosen in the sidebar (English until chosen)."""
    import streamlit as st

    value = st.session_state.get(LANG_KEY, "en")
    return value if value in LANGUAGES else "en"


def pick(table: Mapping[str, tuple[str, str]], key: str, language: str | None = None, **values: Any) -> str:
    """The (English, Chinese) label `key` of `table` in the current (or given) language, `{name}` fields filled;
    a page with labels of its own keeps them in a table of this shape."""
    en, zh = table[key]
    text = zh if (language or lang()) == "zh" else en
    return text.format(**values) if values else text


def t(key: str, language: str | None = None, **values: Any) -> str:
    """The label `key` in the current (or given) language, with `{name}` fields filled; the fields that
    carry a program's own sentence (`msg`, `reason`: an unreadable image, a hand that is not valid)
    are translated too where `message_text` knows the sentence."""
    language = language or lang()
    if language != "en":
        values = {k: message_text(v, language) if k in _PROGRAM_TEXT and isinstance(v, str) else v
                  for k, v in values.items()}
    return pick(_LABELS, key, language, **values)


# ---- the program's own sentences (vision.images.ImageError, scoring's HandError, the reader's issues)
# in Chinese: each English sentence as a pattern, its Chinese with the same fields.  A field named
# `tile` is a tile name (said in words), one named `detail` a sentence of its own (translated again).

_PROGRAM_TEXT = frozenset({"msg", "reason"})
_N = r"(?P<n>\d+)"
_TILE = r"(?P<tile>[1-9][mps]|[ESWNCFP]|[fs][1-4])"
_MESSAGES: tuple[tuple[str, str], ...] = (
    # vision.images: photos that cannot be read
    (r"empty file", "空文件"),
    (r"no such file: (?P<path>.+)", "没有这个文件: {path}"),
    (r"not a file: (?P<path>.+)", "不是文件: {path}"),
    (r"file too large: (?P<size>\d+) bytes \(limit (?P<limit>\d+)\)", "文件太大: {size} 字节 (上限 {limit})"),
    (r"not an image, or a format that cannot be read", "不是图片, 或是无法读取的格式"),
    (r"image too large: (?P<w>\d+)x(?P<h>\d+) = (?P<mp>\d+) megapixels \(limit (?P<limit>\d+)\)",
     "图片太大: {w}x{h} = {mp} 百万像素 (上限 {limit})"),
    (r"image too large to read: (?P<w>\d+)x(?P<h>\d+) = (?P<mp>\d+) megapixels as (?P<format>\S+) \(limit (?P<limit>\d+) "
     r"megapixels; a JPEG is read reduced at any size\)",
     "图片太大, 无法读取: {w}x{h} = {mp} 百万像素的 {format} (上限 {limit} 百万像素; JPEG 任何大小都会缩小读取)"),
    (r"image too large: (?P<detail>.+)", "图片太大: {detail}"),
    (r"image has no pixels \((?P<size>[^)]*)\)", "图片没有像素 ({size})"),
    (r"unreadable image data: (?P<detail>.+)", "图片数据无法读取: {detail}"),
    (r"unreadable image: (?P<detail>.+)", "图片无法读取: {detail}"),
    # ... and Pillow's own words after them
    (r"image file is truncated.*", "图片文件不完整 (被截断)"),
    (r"Truncated File Read", "文件被截断"),
    (r"broken PNG file.*", "PNG 文件已损坏"),
    (r"(?:unknown|unsupported) (?:JPEG|BMP|PNG) .*|(?:not a|bad) (?:JPEG|BMP|PNG) .*", "图片格式有误"),
    (r"broken data stream when reading image file", "读取图片文件时数据流损坏"),
    (r"cannot identify image file.*", "无法识别的图片文件"),
    (r"Image size \((?P<pixels>\d+) pixels\) exceeds limit of (?P<limit>\d+) pixels, could be decompression bomb DOS attack\.",
     "图片尺寸 ({pixels} 像素) 超过上限 {limit} 像素"),
    # scoring.hand / scoring.waits / the manual page's draft: hands that are not valid
    (_TILE + r" appears " + _N + r" times; a set has only 4 of each tile", "{tile} 出现 {n} 次, 但一副牌每种只有 4 张"),
    (_TILE + r" is seen " + _N + r" times; a set has only (?P<limit>\d+) of it", "{tile} 出现 {n} 次, 但一副牌只有 {limit} 张"),
    (r"there are only 4 of " + _TILE + r" in a set; this hand would hold " + _N, "一副牌只有 4 张 {tile}, 这手牌会有 {n} 张"),
    (r"a hand has at most 4 melds, this one has " + _N, "一手牌最多 4 组副露, 这手有 {n} 组"),
    (r"a hand has at most 4 melds", "一手牌最多 4 组副露"),
    (r"with (?P<melds>\d+) meld\(s\) the standing hand must hold (?P<expected>\d+) tiles plus the winning tile, but it holds "
     + _N, "有 {melds} 组副露时手牌应为 {expected} 张加和牌张, 但现在是 {n} 张"),
    (r"with (?P<melds>\d+) meld\(s\) a ready hand holds (?P<expected>\d+) standing tiles, not " + _N,
     "有 {melds} 组副露时听牌的手牌应为 {expected} 张, 不是 {n} 张"),
    (r"the standing hand is full: with (?P<melds>\d+) meld\(s\) it holds (?P<expected>\d+) tiles plus the winning tile",
     "手牌已满: 有 {melds} 组副露时手牌为 {expected} 张加和牌张"),
    (r"no room for another meld: take out " + _N + r" standing tile\(s\) first", "没有位置再加一组副露: 请先去掉 {n} 张手牌"),
    (r"pick the winning tile", "请选择和牌张"),
    (r"a chow cannot start at " + _TILE + r": pick the lowest of three consecutive suited tiles",
     "顺子不能从 {tile} 开始: 请选同一花色三张连续牌中最小的一张"),
    (r"no chow starts at " + _TILE + r": a chow is three consecutive tiles of one suit",
     "没有从 {tile} 开始的顺子: 顺子是同一花色的三张连续牌"),
    (r"(?P<meld>.+) is not a chow: a chow is three consecutive tiles of one suit", "{meld} 不是顺子: 顺子是同一花色的三张连续牌"),
    (r"(?P<meld>.+) is not a pung: a pung is 3 identical tiles", "{meld} 不是刻子: 刻子是三张相同的牌"),
    (r"(?P<meld>.+) is not a kong: a kong is 4 identical tiles", "{meld} 不是杠: 杠是四张相同的牌"),
    (r"only a kong can be concealed among the melds, not the (?P<kind>chow|pung) (?P<meld>.+)",
     "副露中只有杠可以是暗杠, {meld} 不行"),
    (r"flowers must be 0 to 8, not (?P<flowers>.+)", "花牌数应为 0 到 8, 不是 {flowers}"),
    (r"(?P<label>seat|prevalent) wind must be one of E S W N, not (?P<value>.+)", "风位应为 E S W N 之一, 不是 {value}"),
    (r"meld " + _N + r": (?P<detail>.+)", "第 {n} 组副露: {detail}"),
    # scoring.notation: a hand typed on the manual page
    (r"digits (?P<digits>'\d+') need a suit letter \(m, p or s\) in (?P<text>.+)", "数字 {digits} 后面要有花色字母 (m、p 或 s): {text}"),
    (r"suit letter (?P<suit>'[mps]') without digits before it in (?P<text>.+)", "花色字母 {suit} 前面没有数字: {text}"),
    (r"unknown tile character (?P<char>'.+') in (?P<text>.+): use digits with m/p/s, or E S W N C F P",
     "未知的牌字符 {char}: {text}; 请用数字加 m/p/s, 或 E S W N C F P"),
    (r"the hand notation must be text", "牌型记法必须是文字"),
    (r"only one winning tile \(\+\) is allowed", "只能有一张和牌张 (+)"),
    (r"'\+' must be followed by exactly one winning tile, got (?P<token>.+)", "'+' 后面必须正好是一张和牌张, 现在是 {token}"),
    (r"unexpected (?P<token>.+) after the winning tile: flags are words such as self-drawn, seat=S",
     "和牌张后面多了 {token}: 标记应为 self-drawn、seat=S 这样的词"),
    (r"a meld bracket is not closed", "副露的括号没有闭合"),
    (r"no winning tile: write it last, after '\+', e\.g\. '\+9s'", "没有和牌张: 写在最后, 放在 '+' 之后, 例如 '+9s'"),
    (r"unknown setting (?P<token>.+): use seat=, prevalent= or flowers=", "未知的设置 {token}: 请用 seat=、prevalent= 或 flowers="),
    (r"flowers must be a number 0 to 8, not (?P<flowers>.+)", "花牌数应为 0 到 8 的数字, 不是 {flowers}"),
    # appui.correction: a fix that names no tile
    (r"there is no tile #" + _N, "没有第 {n} 张牌"),
    (r"unknown tile (?P<name>.+)", "未知的牌 {name}"),
    # tileset.labelfiles and appui.labeling: the Label page's refusals
    (r"(?P<word>'.*') is not a face: use codes \(1m, E, f1, s2\), Chinese \(梅, 春\) or English \(plum, spring, east\)",
     "{word} 不是牌名: 请用代码 (1m, E, f1, s2)、中文 (梅, 春) 或英文 (plum, spring, east)"),
    (r"(?P<name>.+): nothing to undo", "{name}: 没有可撤销的修改"),
    (r"no box numbered (?P<numbers>[\d, ]+) on this photo", "此照片上没有编号为 {numbers} 的框"),
    (r"the labels of (?P<name>.+) are being saved by another program \(lock (?P<lock>.+) held for (?P<s>\d+) s\); try again",
     "{name} 的标注正在被另一个程序保存 (锁 {lock} 已占用 {s} 秒); 请重试"),
    (r"(?P<name>.+): not a photo \((?P<suffixes>[^)]*)\)", "{name}: 不是照片 ({suffixes})"),
    (r"(?P<folder>.+) is not a folder", "{folder} 不是文件夹"),
    (r"cannot read (?P<path>.+?): (?P<error>.+)", "无法读取 {path}: {error}"),
)
_MESSAGE_PATTERNS = tuple((re.compile(pattern), zh) for pattern, zh in _MESSAGES)


def message_text(message: str, language: str | None = None) -> str:
    """A program's own English sentence (an image error, a hand error) in `language`; a sentence
    not in the table stays as it is."""
    if (language or lang()) == "en":
        return message
    text = message.strip()
    for pattern, zh in _MESSAGE_PATTERNS:
        found = pattern.fullmatch(text)
        if found is None:
            continue
        fields = found.groupdict()
        if fields.get("tile"):
            fields["tile"] = tile_words(fields["tile"], "zh")
        if fields.get("detail"):
            fields["detail"] = message_text(fields["detail"], "zh")
        return zh.format(**fields)
    return message


def translator(prefix: str = "", table: Mapping[str, tuple[str, str]] = _LABELS) -> Callable[[str], str]:
    """A widget format_func: `prefix + key` of `table` in the language of this run (bound now, used later)."""
    language = lang()
    return lambda key: pick(table, f"{prefix}{key}", language)


def label_keys() -> tuple[str, ...]:
    return tuple(_LABELS)
