// Drives Apache Derby (libderby-java) embedded, in memory, through JDBC: tables with keys and an
// index, batched inserts, joins with grouping and ordering, updates, deletes. Derby is a real
// program no one here wrote; this driver is only its workload.
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

public class DerbyWorkload {
    public static void main(String[] args) throws Exception {
        int rows = Integer.parseInt(args[0]);
        long checksum = 0;
        try (Connection c = DriverManager.getConnection("jdbc:derby:memory:memcity;create=true")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item(id INT PRIMARY KEY, name VARCHAR(64), price DECIMAL(10,2))");
                s.execute("CREATE TABLE sale(id INT PRIMARY KEY, item INT, qty INT, note VARCHAR(120))");
                s.execute("CREATE INDEX sale_item ON sale(item)");
            }
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO item VALUES(?, ?, ?)")) {
                for (int i = 0; i < rows / 20; i++) {
                    p.setInt(1, i);
                    p.setString(2, "item-" + i);
                    p.setBigDecimal(3, java.math.BigDecimal.valueOf(100 + i % 900, 2));
                    p.addBatch();
                }
                p.executeBatch();
            }
            c.commit();
            Zoo.checkpoint("items");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO sale VALUES(?, ?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    p.setInt(1, i);
                    p.setInt(2, i % (rows / 20));
                    p.setInt(3, 1 + i % 9);
                    p.setString(4, "sale " + i + " of item " + (i % (rows / 20)));
                    p.addBatch();
                    if (i % 500 == 499) p.executeBatch();
                }
                p.executeBatch();
            }
            c.commit();
            Zoo.checkpoint("sales");
            try (Statement s = c.createStatement()) {
                for (int q = 0; q < 10; q++) {
                    try (ResultSet r = s.executeQuery("SELECT i.name, SUM(s.qty), COUNT(*) FROM sale s JOIN item i ON s.item = i.id "
                            + "WHERE MOD(s.id, 10) = " + q + " GROUP BY i.name ORDER BY 2 DESC, 1")) {
                        while (r.next()) checksum += r.getLong(2) + r.getLong(3);
                    }
                }
                Zoo.checkpoint("queries");
                checksum += s.executeUpdate("UPDATE sale SET note = note || ' (shipped)' WHERE MOD(id, 4) = 0");
                checksum += s.executeUpdate("DELETE FROM sale WHERE MOD(id, 6) = 0");
                try (ResultSet r = s.executeQuery("SELECT COUNT(*), SUM(qty) FROM sale")) {
                    r.next();
                    checksum += r.getLong(1) + r.getLong(2);
                }
            }
            c.commit();
        }
        try {
            DriverManager.getConnection("jdbc:derby:;shutdown=true");
        } catch (SQLException expected) {
            // Derby says it shut down by throwing (SQL state XJ015).
        }
        System.out.println("checksum " + checksum);
    }
}
